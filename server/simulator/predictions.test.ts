import { describe, expect, it } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { assessSkew } from "../domain/clusterSkew";
import type { ClusterSnapshot } from "../domain/snapshot";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { readClusterObjects } from "../kube/readers";
import { amiFor, AWS_REGIONS, BOOT_IMAGE_BUILDS } from "./scenarios/bootImages";
import { generatedObjects, paramsFor, type ClusterParams } from "./scenarios/generate";
import type { BootImageCatalog } from "../domain/bootImageInputs";
import { effectiveEnforcement } from "../domain/skewEnforcement";

/**
 * Fleetskew's skew prediction for a cluster's next minor, checked against what the simulated MCO
 * (server/simulator/mco, written from the MCO's source, not from Fleetskew's) reports once the
 * cluster is there. The cluster is read through the same readers and normalizer as a live sweep;
 * "there" is the same generated cluster at 4.22, settled by the simulated MCO.
 */
type Any = Record<string, any>;

/** A fleet that has seen every release's stream knows every published RHCOS AMI (the collector's catalog). */
const catalogOfEveryStream: BootImageCatalog = (() => {
  const entries = new Map<string, { rhcosBuild: string; ocpVersion: string | null }>();
  for (const [minor, build] of Object.entries(BOOT_IMAGE_BUILDS))
    for (const region of AWS_REGIONS)
      entries.set(`aws:${region}:${amiFor(build, region)}`, { rhcosBuild: build, ocpVersion: `4.${minor}.0` });
  return { lookup: (key) => entries.get(key) ?? null };
})();

async function snapshotOf(objects: Any[], catalog: BootImageCatalog = catalogOfEveryStream): Promise<ClusterSnapshot> {
  return normalizeSnapshot(await readClusterObjects(new CapturedCluster(objects as DumpObject[])), catalog);
}

const at422 = (p: ClusterParams): ClusterParams => ({ ...p, history: ["4.22.1", ...p.history] });
const upgradeableOf = (objects: Any[]) =>
  (objects.find((o) => o.kind === "ClusterOperator")?.status?.conditions as Any[]).find((c) => c.type === "Upgradeable")!;
const skewStatusOf = (objects: Any[]) => objects.find((o) => o.kind === "MachineConfiguration")?.status?.bootImageSkewEnforcementStatus;

const clusters = Array.from({ length: 600 }, (_, i) => paramsFor(i, 1)).filter((p) => /^4\.(19|20|21)\./.test(p.history[0]!));

describe("predicted at 4.19–4.21, reported by the simulated MCO at 4.22", () => {
  it("covers the cases the prediction must get right", () => {
    expect(clusters.length).toBeGreaterThan(100);
    for (const has of [
      (p: ClusterParams) => p.windowsMachineSet,
      (p: ClusterParams) => p.customAmi,
      (p: ClusterParams) => p.managedBootImages === "empty-list",
      (p: ClusterParams) => p.azureStackHub,
      (p: ClusterParams) => p.ownedMachineSet && p.topology === "standard",
    ])
      expect(clusters.some(has)).toBe(true);
  });

  it("agrees on the enforcement mode, the recorded value and the Upgradeable condition, word for word", async () => {
    const disagreements: string[] = [];
    for (const p of clusters) {
      const before = await snapshotOf(generatedObjects(p));
      const after = generatedObjects(at422(p));
      const predicted = assessSkew(before, "4.22.1");
      const mode = effectiveEnforcement(before, "4.22.1");
      const status = skewStatusOf(after);
      const reported = upgradeableOf(after);
      const value = status.automatic ?? status.manual ?? null;
      const same =
        mode.mode === status.mode &&
        (mode.value?.ocpVersion ?? null) === (value?.ocpVersion ?? null) &&
        (mode.value?.rhcosVersion ?? null) === (value?.rhcosVersion ?? null) &&
        (predicted.block?.message ?? null) === (reported.status === "False" ? reported.message : null);
      if (!same)
        disagreements.push(
          `${p.name} (${p.platform} ${p.history[0]}, ${p.managedBootImages}): predicted ${mode.mode} ${JSON.stringify(mode.value)} ${predicted.block ? "blocked" : "not blocked"}; ` +
            `MCO ${JSON.stringify(status)} Upgradeable=${reported.status} ${reported.reason}`,
        );
    }
    expect(disagreements).toEqual([]);
    // Not a comparison of nothing: both blocked and unblocked clusters, and every mode, are among them.
    const outcomes = new Set(
      clusters.map((p) => `${skewStatusOf(generatedObjects(at422(p))).mode}/${upgradeableOf(generatedObjects(at422(p))).status}`),
    );
    expect(outcomes).toEqual(new Set(["Automatic/True", "Automatic/False", "Manual/True", "Manual/False", "None/True"]));
  });

  it("at 4.22 the compiled AllowedAMIs decides (platform_helpers.go reconcileAWSProviderSpec), and the prediction names the list", async () => {
    // An AWS cluster not yet opted in (4.18): its MachineSets still boot the install's AMI, a published one.
    const p = Array.from({ length: 600 }, (_, i) => paramsFor(i, 1)).find(
      (c) =>
        c.platform === "AWS" &&
        c.topology === "standard" &&
        c.history[0]!.startsWith("4.18.") &&
        !c.installVersion.startsWith("4.18.") &&
        c.managedBootImages === "unset" &&
        !c.customAmi,
    )!;
    const before = await snapshotOf(generatedObjects(p), { lookup: () => null });
    // Without any catalog: the list knows the AMI, as the simulated MCO (built from the same data) does.
    expect(effectiveEnforcement(before, "4.22.1")).toMatchObject({
      mode: "Automatic",
      value: { ocpVersion: "4.22.1" },
      installVersionFallback: false,
    });
    expect(before.machineSets.find((m) => m.reference.platform === "AWS" && !m.windows)?.ifAllManaged.amiList).toMatch(
      /^release-4\.22's AllowedAMIs \(pkg\/controller\/bootimage\/ami\.go at 9027c94cde45/,
    );
    expect(skewStatusOf(generatedObjects(at422(p)))).toEqual({ mode: "Automatic", automatic: { ocpVersion: "4.22.1" } });
  });

  it("from 4.23 the MCO asks EC2 for the owner: installer-published AMIs are placed, a custom one leaves the outcome to EC2 (aws_helpers.go detectAMIKind)", async () => {
    const pick = (custom: boolean) =>
      Array.from({ length: 600 }, (_, i) => paramsFor(i, 1)).find(
        (c) =>
          c.platform === "AWS" &&
          c.topology === "standard" &&
          c.history[0]!.startsWith("4.18.") &&
          !c.installVersion.startsWith("4.18.") &&
          c.managedBootImages === "unset" &&
          c.customAmi === custom,
      )!;
    // The generated world's AMIs are real ones from the installer's rhcos.json: Red Hat owns them.
    const published = effectiveEnforcement(await snapshotOf(generatedObjects(pick(false)), { lookup: () => null }), "4.23.1");
    expect(published.basis).not.toMatch(/skips/);
    expect(published.undetermined ?? null).toBeNull();
    // A site's own AMI: skipped if the site owns it, updated if it is a Marketplace one, an error if EC2 cannot describe it.
    const custom = effectiveEnforcement(await snapshotOf(generatedObjects(pick(true)), { lookup: () => null }), "4.23.1");
    expect(custom).toMatchObject({ mode: "Automatic", value: null });
    expect(custom.undetermined).toMatch(
      /depends on EC2: .*detectAMIKind.*Should that fail, the controller goes Degraded with error syncing MAPI MachineSet .*AMI ami-0[0-9a-f]+ not found/,
    );
  });
});

describe("vSphere: a workspace matching no failure domain (vsphere_helpers.go createNewVMTemplate)", () => {
  it("Fleetskew predicts the MCO's Degraded error and the block it causes, word for word", async () => {
    const p = clusters.find((c) => c.platform === "VSphere" && c.topology === "standard" && /^4\.21\./.test(c.history[0]!))!;
    expect(p).toBeDefined();
    const moved = (objects: Any[]) => {
      const infra = objects.find((o) => o.kind === "Infrastructure")!;
      infra.spec.platformSpec.vsphere.failureDomains[0].topology.datastore = "datastore2";
      return objects;
    };
    const before = await snapshotOf(moved(generatedObjects(p)));
    const predicted = assessSkew(before, "4.22.1");
    expect(predicted.enforcement.degradedController).toMatch(/does not match any vCenter\/failure domain in the Infrastructure object/);
    // The simulated MCO at 4.22 with the same Infrastructure.
    const { reconcileMachineConfigUpgradeable, reconcileMachineConfiguration } = await import("./mco");
    const { arrayView } = await import("./scenarios/settle");
    const after = moved(generatedObjects(at422(p)));
    const view = arrayView(after as never, "4.22.1", new Date("2026-06-01T00:00:00Z"), true);
    reconcileMachineConfiguration(view);
    reconcileMachineConfigUpgradeable(view);
    const degraded = (after.find((o) => o.kind === "MachineConfiguration")!.status.conditions as Any[]).find(
      (c) => c.type === "BootImageUpdateDegraded",
    )!;
    expect(degraded.status).toBe("True");
    expect(upgradeableOf(after)).toMatchObject({ status: "False", message: predicted.block!.message });
  });
});

describe("the simulated MCO against the reference cluster's own capture", () => {
  it("settles prod-east at 4.22.3 to the skew status and Upgradeable=False message the projected capture records", async () => {
    const { prodEast422Objects } = await import("./scenarios/prodEast");
    const { reconcileMachineConfigUpgradeable, reconcileMachineConfiguration } = await import("./mco");
    const { arrayView } = await import("./scenarios/settle");
    const captured = prodEast422Objects() as Any[];
    const objects = structuredClone(captured);
    const view = arrayView(objects as never, "4.22.3", new Date("2026-06-01T00:00:00Z"), true);
    reconcileMachineConfiguration(view);
    reconcileMachineConfigUpgradeable(view);
    expect(skewStatusOf(objects)).toEqual(skewStatusOf(captured));
    expect(upgradeableOf(objects)).toMatchObject({
      status: "False",
      reason: "ClusterBootImageSkewError",
      message: upgradeableOf(captured).message,
    });
  });
});

describe("the skew prediction says which release's AMI list decided", () => {
  it("at 4.22: release-4.22's AllowedAMIs with its commit; at 4.23 no compiled list", async () => {
    const p = Array.from({ length: 600 }, (_, i) => paramsFor(i, 1)).find(
      (c) =>
        c.platform === "AWS" &&
        c.topology === "standard" &&
        c.history[0]!.startsWith("4.18.") &&
        !c.installVersion.startsWith("4.18.") &&
        c.managedBootImages === "unset" &&
        !c.customAmi,
    )!;
    const before = await snapshotOf(generatedObjects(p), { lookup: () => null });
    expect(effectiveEnforcement(before, "4.22.1").basis).toContain(
      "AMIs judged by release-4.22's AllowedAMIs (pkg/controller/bootimage/ami.go at 9027c94cde45, 9,573 AMIs)",
    );
    expect(effectiveEnforcement(before, "4.23.1").basis).not.toContain("AllowedAMIs");
  });
});
