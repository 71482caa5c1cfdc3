import { describe, expect, it } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { assessSkew, clusterSkew } from "../domain/clusterSkew";
import { defaultPoliciesFor, mergeClusterPolicies } from "../domain/disruption/policy";
import { checkBootImageSkew, installVersion } from "../domain/skew";
import type { ClusterSnapshot } from "../domain/snapshot";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { readClusterObjects } from "../kube/readers";
import { amiFor, AWS_REGIONS, BOOT_IMAGE_BUILDS, customAmiFor } from "./scenarios/bootImages";
import { builtObjects, paramsFor, type ClusterParams } from "./scenarios/generate";
import { planFor } from "./scenarios/plan";
import { settle } from "./scenarios/settle";
import type { BootImageCatalog } from "../domain/bootImageInputs";
import { effectiveEnforcement } from "../domain/skewEnforcement";

/**
 * The boot-image skew rules Fleetskew used to get wrong, each checked two
 * ways: Fleetskew's prediction for 4.22 made from the cluster at 4.21, and what the simulated MCO
 * (written from the named MCO function) reports once the same cluster, changed the same way, is at 4.22.
 */
type Any = Record<string, any>;
type Change = (objects: Any[]) => void;

const catalog: BootImageCatalog = (() => {
  const known = new Map<string, { rhcosBuild: string; ocpVersion: string | null }>();
  for (const [minor, build] of Object.entries(BOOT_IMAGE_BUILDS))
    for (const region of AWS_REGIONS)
      known.set(`aws:${region}:${amiFor(build, region)}`, { rhcosBuild: build, ocpVersion: `4.${minor}.0` });
  return { lookup: (key) => known.get(key) ?? null };
})();

const fleet = Array.from({ length: 1500 }, (_, i) => paramsFor(i, 1));
/** A standard 4.21 cluster of `platform`, installed below the skew limit, with no admin opinion and nothing unusual. */
function base(platform: ClusterParams["platform"]): ClusterParams {
  const p = fleet.find(
    (c) => c.platform === platform && c.topology === "standard" && c.history[0]!.startsWith("4.21.") && c.installVersion < "4.13",
  )!;
  return { ...p, managedBootImages: "unset", ownedMachineSet: false, windowsMachineSet: false, customAmi: false, azureStackHub: false };
}

async function snapshotOf(objects: Any[]): Promise<ClusterSnapshot> {
  return normalizeSnapshot(await readClusterObjects(new CapturedCluster(objects as DumpObject[])), catalog);
}

/** The cluster at 4.21 with `change`, as Fleetskew reads it, and the same at 4.22 as the simulated MCO leaves it. */
async function beforeAndAfter(p: ClusterParams, change: Change) {
  const plan = planFor(p);
  const before = builtObjects(plan) as Any[];
  change(before);
  const next = planFor({ ...p, history: ["4.22.1", ...p.history] });
  const after = builtObjects(next) as Any[];
  change(after);
  settle(next, after as never);
  const snapshot = await snapshotOf(settle(plan, before as never));
  const mc = after.find((o) => o.kind === "MachineConfiguration")!;
  const upgradeable = (after.find((o) => o.kind === "ClusterOperator")!.status.conditions as Any[]).find((c) => c.type === "Upgradeable")!;
  return { snapshot, mc, upgradeable, predicted: assessSkew(snapshot, "4.22.1"), mode: effectiveEnforcement(snapshot, "4.22.1") };
}

const machineSets = (objects: Any[]) => objects.filter((o) => o.kind === "MachineSet");
const blockedMessage = (o: Any) => (o.status === "False" ? o.message : null);

describe("item 1: syncMAPIMachineSet excludes Windows MachineSets and other OS streams, without counting them as skipped", () => {
  const windows: Change = (objects) => {
    const ms = structuredClone(machineSets(objects)[0]!);
    ms.metadata.name = `${ms.metadata.name}-windows`;
    ms.spec.template.metadata.labels["machine.openshift.io/os-id"] = "Windows";
    ms.spec.template.spec.providerSpec.value.ami = { id: "ami-0windows0000000000" };
    objects.push(ms);
  };
  const otherStream: Change = (objects) => {
    machineSets(objects)[0]!.metadata.labels["machineconfiguration.openshift.io/osstream"] = "rhel-10";
  };

  it.each([
    ["a Windows MachineSet (template label machine.openshift.io/os-id: Windows)", windows],
    ["a MachineSet labelled for another OS stream (machineconfiguration.openshift.io/osstream: rhel-10)", otherStream],
  ])("%s: the record still moves to the release, so an old cluster is not blocked", async (_what, change) => {
    const r = await beforeAndAfter(base("AWS"), change);
    expect(r.snapshot.machineSets.some((m) => m.ifAllManaged.action === "exclude")).toBe(true);
    expect(r.mode).toMatchObject({ mode: "Automatic", value: { ocpVersion: "4.22.1" } });
    expect(r.predicted.block).toBeNull();
    expect(r.mc.status.bootImageSkewEnforcementStatus).toEqual({ mode: "Automatic", automatic: { ocpVersion: "4.22.1" } });
    expect(r.upgradeable).toMatchObject({ status: "True", reason: "AsExpected" });
    // Counted among the MachineSets, not as skipped (getProgressingStatusMessage).
    const n = r.snapshot.machineSets.length;
    expect((r.mc.status.conditions as Any[]).find((c) => c.type === "BootImageUpdateProgressing")!.message).toMatch(
      new RegExp(`^Reconciled ${n} of ${n} MAPI MachineSets \\|`),
    );
  });

  it("an owner reference, by contrast, is skipped: resetClusterBootImage writes the install version, and the old cluster is blocked", async () => {
    const p = base("AWS");
    const r = await beforeAndAfter(p, (objects) => {
      machineSets(objects)[0]!.metadata.ownerReferences = [{ apiVersion: "example.com/v1", kind: "Pool", name: "p", uid: "u" }];
    });
    expect(r.mc.status.bootImageSkewEnforcementStatus).toEqual({ mode: "Automatic", automatic: { ocpVersion: p.installVersion } });
    expect(r.predicted.block?.message).toBe(blockedMessage(r.upgradeable));
    expect((r.mc.status.conditions as Any[]).find((c) => c.type === "BootImageUpdateProgressing")!.message).toMatch(
      /^Reconciled 2 of 3 MAPI MachineSets \(1 skipped\) \|/,
    );
  });
});

describe("item 2: syncManagedBootImagesStatus copies an explicitly empty machineManagers list (the legacy full opt-out)", () => {
  it("falls back to Manual with the install version and blocks an old cluster, where Fleetskew used to assume All", async () => {
    const p = base("AWS");
    const r = await beforeAndAfter(p, (objects) => {
      objects.find((o) => o.kind === "MachineConfiguration")!.spec.managedBootImages = { machineManagers: [] };
    });
    expect(r.snapshot.managedMachineSets.specEmptyList).toBe(true);
    expect(r.mode).toMatchObject({ mode: "Manual", value: { ocpVersion: p.installVersion }, installVersionFallback: true });
    expect(r.mode.basis).toContain("empty list");
    expect(r.mc.status.managedBootImagesStatus).toEqual({ machineManagers: [] });
    expect(r.mc.status.bootImageSkewEnforcementStatus).toEqual({
      mode: "Manual",
      manual: { mode: "OCPVersion", ocpVersion: p.installVersion },
    });
    expect(r.predicted.block?.message).toBe(blockedMessage(r.upgradeable));
    expect(r.upgradeable.reason).toBe("ClusterBootImageSkewError");
    expect(clusterSkew(r.snapshot).status).toBe("at-risk");
  });
});

describe("item 3: CheckBootImagePlatform does not support Azure Stack Hub (cloudName AzureStackCloud)", () => {
  it("reads the cloud name, predicts Manual with the install version, and agrees with the MCO", async () => {
    const p = base("Azure");
    const r = await beforeAndAfter({ ...p, azureStackHub: true }, () => undefined);
    expect(r.snapshot.azureCloudName).toBe("AzureStackCloud");
    expect(r.snapshot.machineSets.every((m) => m.ifAllManaged.action === "exclude")).toBe(true);
    expect(r.mode).toMatchObject({ mode: "Manual", value: { ocpVersion: p.installVersion } });
    expect(r.mode.basis).toContain("Azure Stack Hub");
    expect(r.mc.status.managedBootImagesStatus).toBeUndefined();
    expect(r.mc.status.bootImageSkewEnforcementStatus).toEqual({
      mode: "Manual",
      manual: { mode: "OCPVersion", ocpVersion: p.installVersion },
    });
    expect(r.predicted.block?.message).toBe(blockedMessage(r.upgradeable));
    // Plain Azure is supported from 4.21: the same cluster elsewhere moves to the 4.22 marketplace image.
    const plain = await beforeAndAfter(p, () => undefined);
    expect(plain.mc.status.bootImageSkewEnforcementStatus).toEqual({ mode: "Automatic", automatic: { ocpVersion: "4.22.1" } });
    expect(plain.predicted.block).toBeNull();
  });
});

describe("item 4: what the MCO does not recognise is skipped, and what it cannot read fails", () => {
  it("reconcileAWSProviderSpec (release-4.22 AllowedAMIs): a custom AMI is skipped, which resets the record", async () => {
    const p = base("AWS");
    const r = await beforeAndAfter({ ...p, customAmi: true }, () => undefined);
    const custom = r.snapshot.machineSets.find((m) => m.display.startsWith(customAmiFor(p.name)))!;
    // At 4.21 the MCO already manages it (AWS is opted in by default) and has left it alone: observed, not assumed.
    expect(custom.ifAllManaged).toMatchObject({ action: "skip", basis: "observed" });
    expect(r.mc.status.bootImageSkewEnforcementStatus.automatic.ocpVersion).toBe(p.installVersion);
    expect(r.predicted.block?.message).toBe(blockedMessage(r.upgradeable));
  });

  it("reconcileAzureProviderSpec: a stream without Azure marketplace images skips the MachineSet", async () => {
    const p = base("Azure");
    const dropMarketplace: Change = (objects) => {
      const cm = objects.find((o) => o.metadata.name === "coreos-bootimages")!;
      const stream = JSON.parse(cm.data.stream);
      delete stream.architectures.x86_64["rhel-coreos-extensions"].marketplace.azure;
      cm.data.stream = JSON.stringify(stream);
    };
    const r = await beforeAndAfter(p, dropMarketplace);
    expect(r.snapshot.machineSets[0]!.ifAllManaged).toMatchObject({
      action: "skip",
      reason: expect.stringContaining("no Azure marketplace images"),
    });
    expect(r.mc.status.bootImageSkewEnforcementStatus.automatic.ocpVersion).toBe(p.installVersion);
    expect(r.predicted.block?.message).toBe(blockedMessage(r.upgradeable));
  });

  it.each([
    [
      "an invalid architecture (getArchFromMachineSet: invalid architecture value)",
      "kubernetes.io/arch=sparc64",
      "invalid architecture value found in annotation: sparc64",
    ],
    [
      "an annotation without kubernetes.io/arch (getArchFromMachineSet)",
      "node.kubernetes.io/instance-type=m5.large",
      "kubernetes.io/arch label not found in annotation: node.kubernetes.io/instance-type=m5.large",
    ],
  ])("%s degrades the controller, which blocks in Automatic mode with its message", async (_what, annotation, error) => {
    const r = await beforeAndAfter(base("AWS"), (objects) => {
      machineSets(objects)[0]!.metadata.annotations = { "capacity.cluster-autoscaler.kubernetes.io/labels": annotation };
    });
    expect(r.snapshot.machineSets.some((m) => m.ifAllManaged.action === "error" && m.ifAllManaged.error?.endsWith(error))).toBe(true);
    expect(r.mode.degradedController).toContain(`Error(s): error syncing MAPI MachineSet`);
    expect(r.upgradeable).toMatchObject({ status: "False", reason: "ClusterBootImageSkewError" });
    expect(r.upgradeable.message).toMatch(
      /^Upgrades have been disabled due to boot image update failures: Boot image controller is degraded: 1 Degraded MAPI MachineSets/,
    );
    expect(r.predicted.block?.message).toBe(r.upgradeable.message);
  });

  it("getArchFromMachineSet: no annotation on a single-architecture cluster means the control plane's architecture", async () => {
    const r = await beforeAndAfter(base("AWS"), (objects) => {
      for (const ms of machineSets(objects)) ms.metadata.annotations = {};
      for (const n of objects.filter((o) => o.kind === "Node")) n.metadata.labels["kubernetes.io/arch"] = "arm64";
    });
    // The stream has no aarch64 AMIs for these regions: the MCO skips every MachineSet, and so does the prediction.
    expect(r.snapshot.controlPlaneArchitecture).toBe("arm64");
    expect(r.snapshot.machineSets.every((m) => m.ifAllManaged.action === "skip" && m.ifAllManaged.reason.includes("aarch64"))).toBe(true);
    expect(r.predicted.block?.message).toBe(blockedMessage(r.upgradeable));
    expect(r.upgradeable.status).toBe("False");
  });

  it("getArchFromMachineSet: no annotation on a multi-architecture cluster is skipped", async () => {
    const r = await beforeAndAfter(base("AWS"), (objects) => {
      machineSets(objects)[0]!.metadata.annotations = {};
      objects.find((o) => o.kind === "ClusterVersion")!.status.desired.architecture = "Multi";
    });
    expect(r.snapshot.machineSets.filter((m) => m.ifAllManaged.action === "skip")).toHaveLength(1);
    expect(r.predicted.block?.message).toBe(blockedMessage(r.upgradeable));
  });

  it.each([
    ["04.12.0", "a leading zero in the first field does not parse (ParseGeneric): not blocked", "unparseable"],
    ["4.012.0", "leading zeros in later fields do (4.012.0 is 4.12.0): blocked", "below-limit"],
    ["4.12", "two fields are enough (ParseGeneric): blocked", "below-limit"],
    ["4.12.0\nx", "a newline after the numbers does not parse: not blocked", "unparseable"],
  ])("checkOCPVersionSkew %j: %s", (value, _what, outcome) => {
    expect(checkBootImageSkew({ ocpVersion: value }, { ocpVersion: "4.13.0", rhelVersion: "9.2" }, "4.22.1").outcome).toBe(outcome);
  });

  it.each([
    ["9.6.20250701-0.1", "within-limit", "a fourth field is ignored (len(parts) >= 3)"],
    ["412.86.202301311551-0", "below-limit", "legacy: RHEL 8.6"],
    ["412.8.202301311551-0", "unparseable", "legacy with a one-digit RHEL field is refused (len(minor) >= 2)"],
    ["09.6.20250701-0", "unparseable", "new scheme with a leading zero: ParseGeneric refuses 09.6"],
    ["9.6.2025070-0", "unparseable", "a date stamp of neither 8 nor 12 digits"],
  ])("checkRHCOSVersionSkew %j → %s (%s)", (value, outcome) => {
    expect(checkBootImageSkew({ rhcosVersion: value }, { ocpVersion: "4.13.0", rhelVersion: "9.2" }, "4.22.1").outcome).toBe(outcome);
  });

  it("GetOCPInstallVersion: a Completed entry with an empty version falls back to the oldest entry, however it is", () => {
    expect(
      installVersion([
        { state: "Completed", version: "4.19.10" },
        { state: "Partial", version: "4.12.7" },
        { state: "Completed", version: "" },
      ]),
    ).toBe("0.0.0");
    expect(
      installVersion([
        { state: "Completed", version: "4.19.10" },
        { state: "Completed", version: "" },
        { state: "Partial", version: "4.11.2" },
      ]),
    ).toBe("4.11.2");
  });
});

describe("item 7: the node-disruption defaults of each release, as the simulated operator writes them into its status", () => {
  it.each(["4.17.9", "4.18.20", "4.21.5", "4.22.1"])(
    "Fleetskew's defaults for %s merged with the spec equal the status that release's MCO writes",
    (release) => {
      const p = { ...base("AWS"), history: [release, "4.16.2"], installVersion: "4.16.2" };
      const objects = builtObjects(planFor(p)) as Any[];
      settle(planFor(p), objects as never);
      const mc = objects.find((o) => o.kind === "MachineConfiguration")!;
      const ours = mergeClusterPolicies(mc.spec.nodeDisruptionPolicy, [], [], defaultPoliciesFor(release).policies);
      expect(mc.status.nodeDisruptionPolicyStatus.clusterPolicies).toEqual(ours);
    },
  );

  it("4.16: the operator writes no policy status (the gate is off by default), and Fleetskew then uses the legacy rules", () => {
    const p = { ...base("AWS"), history: ["4.16.9", "4.16.2"], installVersion: "4.16.2" };
    const objects = builtObjects(planFor(p)) as Any[];
    settle(planFor(p), objects as never);
    expect(objects.find((o) => o.kind === "MachineConfiguration")!.status.nodeDisruptionPolicyStatus).toBeUndefined();
    expect(defaultPoliciesFor("4.16.9").legacy).toBe(true);
  });
});
