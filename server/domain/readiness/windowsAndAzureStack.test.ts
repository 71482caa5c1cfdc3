import { describe, expect, it } from "vitest";
import { resolveBootImage } from "../bootImages";
import { clusterSkew } from "../clusterSkew";
import { machineSetLag, oldestBootImage } from "../oldestBootImage";
import type { MachineSetFacts } from "../snapshot";
import { healthyCluster, history, machineSet, versionFacts } from "../testing/snapshots";
import { run } from "./testing";

/** A Windows MachineSet as the collector resolves it: template label machine.openshift.io/os-id: Windows. */
function windowsMachineSet(name: string): MachineSetFacts {
  const input = {
    name,
    templateLabels: { "machine.openshift.io/os-id": "Windows" },
    providerSpec: { kind: "AWSMachineProviderConfig", ami: { id: "ami-0windows2019" }, placement: { region: "us-east-1" } },
  };
  const context = { stream: null, releaseVersion: "4.19.10", history: history("4.19.10", "4.12.7"), platform: "AWS", machineManagers: [] };
  const allManaged = {
    ...context,
    hypothetical: true,
    machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
  };
  // Windows AMIs are in no stream: like any unknown AMI, the collector dates it by the install version.
  return { ...resolveBootImage(input, context), replicas: 1, ifAllManaged: resolveBootImage(input, allManaged).mco };
}

const fiveMachineSets = () =>
  healthyCluster({
    version: versionFacts(history("4.19.10", "4.12.7")),
    machineSets: [
      ...["a", "b", "c", "d"].map((z) => machineSet(`worker-${z}`, { ocpVersion: "4.19.10", rhcosBuild: "9.6.20250701-0" })),
      windowsMachineSet("windows-worker"),
    ],
  });

describe("ms_helpers.go syncMAPIMachineSet: a Windows MachineSet (template label os-id Windows) is left out of everything about boot-image skew", () => {
  it("the collector marks it Windows and the MCO's decision is exclude, not skip", () => {
    const w = windowsMachineSet("windows-worker");
    expect(w.windows).toBe(true);
    expect(w.ocpVersion).toBe("4.12.7");
    expect(w.ifAllManaged.action).toBe("exclude");
  });

  it("it is not the cluster's oldest boot image, and has no lag", () => {
    const s = fiveMachineSets();
    expect(oldestBootImage(s)).toMatchObject({ machineSet: "worker-a", ocpVersion: "4.19.10", lagMinors: 0 });
    expect(clusterSkew(s).oldest?.machineSet).toBe("worker-a");
    expect(
      machineSetLag(
        "4.19.10",
        s.machineSets.find((m) => m.machineSet === "windows-worker")!,
      ),
    ).toBeNull();
  });

  it("it raises no RHEL 8 warning", () => {
    const c = run(fiveMachineSets(), "4.20.5", "rhel-major-change");
    expect(c.status).toBe("pass");
    expect(c.detail).not.toContain("windows-worker");
  });

  it("machinesets-skipped counts the 4 the MCO would update and names the excluded one", () => {
    const c = run(fiveMachineSets(), "4.20.5", "machinesets-skipped");
    expect(c.status).toBe("pass");
    expect(c.detail).toMatch(/^With managed boot images the MCO would update 4 of 5 MachineSets\. It leaves out 1 MachineSet on purpose/);
    expect(c.detail).toContain("windows-worker (Windows MachineSets are excluded by the MCO, not counted as skipped)");
  });
});

describe("featuregates.go CheckBootImagePlatform: Azure Stack Hub (cloud name AzureStackCloud) is never supported", () => {
  it("machinesets-skipped says the MCO updates nothing there, not that it would update them", () => {
    const s = healthyCluster({ platform: "Azure", azureCloudName: "AzureStackCloud", version: versionFacts(history("4.22.3")) });
    const c = run(s, "4.22.5", "machinesets-skipped");
    expect(c.status).toBe("pass");
    expect(c.detail).toContain("does not update MachineSet boot images on Azure Stack Hub");
    expect(c.detail).not.toContain("would update");
  });

  it("public Azure at 4.22 is supported: the MCO would update the MachineSet", () => {
    const s = healthyCluster({ platform: "Azure", azureCloudName: "AzurePublicCloud", version: versionFacts(history("4.22.3")) });
    expect(run(s, "4.22.5", "machinesets-skipped").detail).toContain("would update all 1 MachineSet");
  });
});
