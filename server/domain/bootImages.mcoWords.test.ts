import { describe, expect, it } from "vitest";
import { mcoDecision, resolveBootImage } from "./bootImages";
import { clusterSkew } from "./clusterSkew";
import { healthyCluster, history, versionFacts } from "./testing/snapshots";
import type { ClusterBootContext, MachineSetInput } from "./bootImageInputs";

/** The boot image controller's failures in the MCO's own words, or said plainly to be a crash (platform_helpers.go). */
const ALL = [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }];
const context = (platform: string, stream: unknown): ClusterBootContext => ({
  stream,
  releaseVersion: "4.22.3",
  history: history("4.22.3", "4.14.2"),
  platform,
  machineManagers: ALL,
  release: "4.22.3",
});
const gcpSet: MachineSetInput = {
  name: "gcp-worker-a",
  providerSpec: { kind: "GCPMachineProviderSpec", disks: [{ boot: true, image: "projects/rhcos-cloud/global/images/rhcos-414-old" }] },
};
const azureSet: MachineSetInput = {
  name: "azure-worker-a",
  annotations: { "capacity.cluster-autoscaler.kubernetes.io/labels": "kubernetes.io/arch=arm64" },
  providerSpec: {
    kind: "AzureMachineProviderSpec",
    image: { resourceID: "/resourceGroups/rg/providers/Microsoft.Compute/images/rhcos-gen2" },
  },
};
const vsphereSet: MachineSetInput = { name: "vs-worker-a", providerSpec: { kind: "VSphereMachineProviderSpec", template: "rhcos-tpl" } };
/** The MCO's decision on `ms`, its reference read as the collector reads it. */
const decide = (ms: MachineSetInput, platform: string, stream: unknown) =>
  mcoDecision(ms, resolveBootImage(ms, context(platform, null)).reference, context(platform, stream));

describe("platform_helpers.go reconcileGCPProviderSpec: no GCP image for the architecture is a nil pointer dereference, not an error message", () => {
  it("the decision says plainly that the MCO crashes and quotes no MCO text", () => {
    const d = decide(gcpSet, "GCP", { stream: "rhcos-4.22", architectures: { x86_64: { images: {} } } });
    expect(d).toMatchObject({ action: "error", crash: true });
    expect(d.error).toBe(
      "the MCO's boot image controller crashes here (a nil pointer dereference in reconcileGCPProviderSpec) and writes no Degraded message of its own",
    );
    expect(d.error).not.toContain("no GCP image in the boot image stream");
  });

  it("the skew prediction writes no made-up Degraded message and names the assumption", () => {
    const s = healthyCluster({
      platform: "GCP",
      version: versionFacts(history("4.21.5", "4.12.3")),
      managedMachineSets: { spec: "All", status: "All" },
      machineSets: [
        {
          ...resolveBootImage(gcpSet, context("GCP", null)),
          replicas: 1,
          ifAllManaged: decide(gcpSet, "GCP", { stream: "s", architectures: {} }),
        },
      ],
    });
    const skew = clusterSkew(s);
    expect(skew.assessment?.enforcement.degradedController ?? null).toBeNull();
    expect(skew.assessment?.enforcement.assumption).toContain("the MCO's own behaviour on gcp-worker-a is a crash");
    expect(skew.assessment?.block?.message ?? "").not.toContain("no GCP image");
    expect(skew.assessment?.mcoRelease).toBe("4.22");
  });

  it("a crashing controller blocks nothing: syncMAPIMachineSets sets Progressing True before the panic, so checkBootImageControllerReady skips the check", () => {
    // Install 4.12.3 is below 4.13.0: a controller that finished its pass would block. The MCO's
    // release-4.22 code run on this cluster left BootImageUpdateProgressing True and Upgradeable alone.
    const s = healthyCluster({
      platform: "GCP",
      version: versionFacts(history("4.21.5", "4.12.3")),
      managedMachineSets: { spec: "All", status: "All" },
      machineSets: [
        {
          ...resolveBootImage(gcpSet, context("GCP", null)),
          replicas: 1,
          ifAllManaged: decide(gcpSet, "GCP", { stream: "s", architectures: {} }),
        },
      ],
    });
    const skew = clusterSkew(s);
    expect(skew.assessment?.verdict?.outcome).toBe("below-limit");
    expect(skew.assessment?.block).toBeNull();
    expect(skew.assessment?.enforcement.skewCheckSkipped).toContain("checkBootImageControllerReady");
    expect(skew.assessment?.notes.join(" ")).toContain("never finishes a pass");
    expect(skew.status).toBe("at-risk");
    expect(skew.summary).toContain("not blocked, but only because the boot image controller crashes on gcp-worker-a");
  });
});

describe("stream-metadata-go GetArchitecture (via reconcileAzureProviderSpec, reconcileVSphereProviderSpec): its own error words", () => {
  it("Azure: an architecture missing from the stream", () => {
    const d = decide(azureSet, "Azure", { stream: "rhcos-4.22", architectures: { x86_64: {} } });
    expect(d.error).toBe(
      "error syncing MAPI MachineSet azure-worker-a: failed to reconcile machineset azure-worker-a, err: stream:rhcos-4.22 does not have architecture 'aarch64'",
    );
  });

  it("Azure: no rhel-coreos-extensions is a crash (RHELCoreOSExtensions.Marketplace on a nil pointer)", () => {
    const d = decide(azureSet, "Azure", { stream: "rhcos-4.22", architectures: { aarch64: {} } });
    expect(d).toMatchObject({ action: "error", crash: true });
  });

  it("vSphere: no vmware artifact, in FormatPrefix's words; with one, an update assumed (vsphere-creds and failure domains are not read)", () => {
    const none = decide(vsphereSet, "VSphere", { stream: "rhcos-4.22", architectures: { x86_64: { artifacts: {} } } });
    expect(none.error).toBe(
      "error syncing MAPI MachineSet vs-worker-a: failed to reconcile machineset vs-worker-a, err: rhcos-4.22/x86_64: artifact 'vmware' not found",
    );
    const ok = decide(vsphereSet, "VSphere", {
      stream: "rhcos-4.22",
      architectures: { x86_64: { artifacts: { vmware: { release: "9.6.20250701-0" } } } },
    });
    expect(ok).toMatchObject({ action: "update", basis: "assumed" });
  });
});
