import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assessSkew } from "../domain/clusterSkew";
import { evaluateReadiness } from "../domain/readiness";
import { decisionAt, type ClusterSnapshot } from "../domain/snapshot";
import { ClusterClient } from "../kube/client";
import { readClusterObjects } from "../kube/readers";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { Reconciler } from "../simulator/reconciler";
import { MARKETPLACE_CATALOG, MARKETPLACE_PRODUCTS, marketplaceClusterSpecs } from "../simulator/scenarios/marketplace";
import { makeAllDue } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials, testCollectorOptions } from "../testing/fleet";
import { Collector, judgeRead } from "./collector";
import { normalizeSnapshot } from "./normalize";

/**
 * AWS Marketplace boot images and EC2 failures at 4.23 (docs/openshift.md §15.4, §25): Fleetskew's
 * real client, normalizer and collector against the simulator over HTTPS, and its prediction compared
 * with what the simulated release-4.23 MCO (server/simulator/mco/aws.ts, written from aws_helpers.go
 * at d20efd9b9bdb, never from server/domain) then does. prod-east, installed 4.12.7: two workers on
 * AWS Marketplace AMIs (OCP and OKE listings), one on the stream's AMI since the 4.22 pass, infra on it.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;

beforeAll(async () => {
  fleet = new Fleet();
  for (const spec of marketplaceClusterSpecs()) fleet.add(spec);
  sim = await startSimulator(fleet);
  await registerSimulatedClusters(sim, fleet.list());
  reconciler = new Reconciler(fleet, { now: () => new Date("2026-11-27T00:00:00Z") });
});
afterAll(() => sim.close());

const clientOf = (name: string) =>
  new ClusterClient(simulatorCredentials(sim, fleet.get(name)!), { timeoutMs: 5_000, retries: 0, retryDelayMs: 0 });
async function snapshotOf(name: string): Promise<ClusterSnapshot> {
  const objects = await readClusterObjects(clientOf(name));
  expect(judgeRead(objects)).toBeNull();
  return normalizeSnapshot(objects);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- objects as the simulated MCO wrote them
type Any = Record<string, any>;
const MS = "prod-east-7xk2p-worker-us-east-1";
const INFRA = "prod-east-7xk2p-infra-us-east-1a";
const STREAM_AMI = "ami-0422676091bb78731";
const MARKETPLACE = [`${MS}a`, `${MS}b`];
const catalogAmi = (product: string, release: string) =>
  MARKETPLACE_CATALOG.find((i) => i.name!.endsWith(product) && i.description!.includes(` ${release} `))!.imageId;
/** What the simulated MCO wrote, read back over the API as the collector reads it. */
async function mcoState(name: string) {
  const client = clientOf(name);
  const ref = (group: string, version: string, plural: string, kind: string, namespaced = false) => ({
    group,
    version,
    plural,
    kind,
    namespaced,
  });
  const machineSets = (await client.list(ref("machine.openshift.io", "v1beta1", "machinesets", "MachineSet", true), {
    namespace: "openshift-machine-api",
  })) as Any[];
  const mc = (await client.get(ref("operator.openshift.io", "v1", "machineconfigurations", "MachineConfiguration"), "cluster")) as Any;
  const co = (await client.get(ref("config.openshift.io", "v1", "clusteroperators", "ClusterOperator"), "machine-config")) as Any;
  return {
    amis: Object.fromEntries(machineSets.map((m) => [m.metadata.name, m.spec.template.spec.providerSpec.value.ami.id])),
    record: mc.status.bootImageSkewEnforcementStatus,
    degraded: (mc.status.conditions as Any[]).find((c) => c.type === "BootImageUpdateDegraded")!,
    upgradeable: (co.status.conditions as Any[]).find((c) => c.type === "Upgradeable")!,
  };
}
const byName = (s: ClusterSnapshot, target: string) => Object.fromEntries(s.machineSets.map((m) => [m.machineSet, decisionAt(m, target)]));

describe("AWS Marketplace MachineSets: Fleetskew's prediction for 4.23 against the simulated 4.23 MCO", () => {
  it("at 4.22.3 Fleetskew cannot place the Marketplace AMIs (basis unknown, no verdict), and reports the 4.22 MCO's block on the minor update", async () => {
    const s = await snapshotOf("marketplace-422");
    const d = byName(s, "4.23.1");
    expect(d[INFRA]).toMatchObject({ action: "update" });
    expect(d[`${MS}c`]).toMatchObject({ action: "update" });
    for (const name of MARKETPLACE) {
      expect(d[name]).toMatchObject({ action: "skip", basis: "unknown" });
      expect(d[name]!.reason).toMatch(/^depends on EC2: .*AWS Marketplace ones \(679593333241\) too with an rhcosVersion record/);
    }
    const a = assessSkew(s, "4.23.1");
    expect(a.enforcement).toMatchObject({ mode: "Automatic", value: null, source: "predicted" });
    expect(a.enforcement.undetermined).toContain(`${MS}a: depends on EC2`);
    expect(a.verdict).toBeNull();
    // The release-4.22 MCO skipped them (AllowedAMIs) and reset the record to 4.12.7: the update to 4.23 is blocked now.
    const check = evaluateReadiness(s, "4.23.1").checks.find((c) => c.id === "boot-image-skew")!;
    expect(check.status).toBe("fail");
    expect(check.detail).toContain(
      "the cluster is using OCP boot image version 4.12.7, which is below the minimum required version 4.13.0",
    );
  });

  it("the 4.23 MCO's first pass asks EC2: the Marketplace AMIs are updated, the record becomes an rhcosVersion and machine-config turns Upgradeable", async () => {
    const before = await mcoState("marketplace-423");
    expect(before.record).toEqual({ mode: "Automatic", automatic: { ocpVersion: "4.12.7" } });
    // Known disagreement (docs/openshift.md §15.4): before that pass the conditions are the 4.22 MCO's, yet
    // Fleetskew reads them as the 4.23 MCO's (newest history entry 4.23.1) and calls the skips observed.
    const window = byName(await snapshotOf("marketplace-423"), "4.24.0");
    for (const name of MARKETPLACE) expect(window[name]).toMatchObject({ action: "skip", basis: "observed" });

    reconciler.reconcile(fleet.get("marketplace-423")!);
    const after = await mcoState("marketplace-423");
    expect(after.amis).toEqual({
      [INFRA]: STREAM_AMI,
      [`${MS}a`]: catalogAmi(MARKETPLACE_PRODUCTS.ocpX86_64, "9.6.20260120-0"),
      [`${MS}b`]: catalogAmi(MARKETPLACE_PRODUCTS.okeX86_64, "9.6.20250701-0"),
      [`${MS}c`]: STREAM_AMI,
    });
    // The oldest by major.minor only (cmpRHCOSVersion): both are 9.6, so the first MachineSet's stays.
    expect(after.record).toEqual({ mode: "Automatic", automatic: { rhcosVersion: "9.6.20260120-0" } });
    expect(after.degraded).toMatchObject({ status: "False" });
    expect(after.upgradeable).toMatchObject({ status: "True", reason: "AsExpected" });
    // Every MachineSet Fleetskew predicted updated was updated or already current; the unknown ones were updated too.
    const predicted = byName(await snapshotOf("marketplace-422"), "4.23.1");
    for (const [name, decision] of Object.entries(predicted))
      if (decision.action === "update") expect([STREAM_AMI]).toContain(after.amis[name]);
  });

  it("after the pass Fleetskew reads the rhcosVersion record, and predicts the next minor as the MCO's next pass behaves", async () => {
    const s = await snapshotOf("marketplace-423");
    const a = assessSkew(s, "4.23.2");
    expect(a.enforcement).toMatchObject({ source: "cluster", value: { ocpVersion: null, rhcosVersion: "9.6.20260120-0" } });
    expect(a.verdict).toMatchObject({ outcome: "within-limit", compared: "rhcosVersion" });
    expect(a.block).toBeNull();
    const d = byName(s, "4.24.0");
    for (const name of MARKETPLACE) expect(d[name]).toMatchObject({ action: "update", basis: "observed", rhcosVersion: "9.6.20260120-0" });
    const next = assessSkew(s, "4.24.0");
    expect(next.enforcement).toMatchObject({ source: "predicted", value: { ocpVersion: null, rhcosVersion: "9.6.20260120-0" } });
    expect(next.verdict).toMatchObject({ outcome: "within-limit" });
    expect(next.block).toBeNull();
    // The MCO's next pass (the same rules) changes nothing and keeps the record.
    const settled = await mcoState("marketplace-423");
    reconciler.reconcile(fleet.get("marketplace-423")!);
    expect(await mcoState("marketplace-423")).toEqual(settled);
  });
});

describe("EC2 refuses the 4.23 MCO (UnauthorizedOperation)", () => {
  it("Fleetskew's prediction names the failure only as what would happen should EC2 fail; the MCO goes Degraded and blocks; Fleetskew then reports that block in the MCO's words", async () => {
    const predicted = byName(await snapshotOf("marketplace-422"), "4.23.1");
    for (const d of Object.values(predicted))
      expect(d.ifFails).toMatch(/"DescribeImages failed for ami-[0-9a-f]+: …" when the credentials or EC2 fail/);

    reconciler.reconcile(fleet.get("ec2-denied-423")!);
    const after = await mcoState("ec2-denied-423");
    const words = (ms: string, ami: string) =>
      `error syncing MAPI MachineSet ${ms}: failed to reconcile machineset ${ms}, err: DescribeImages failed for ${ami}: operation error EC2: DescribeImages, ` +
      "https response error StatusCode: 403, RequestID: 5d1f6c2e-8a34-4b7e-9c1d-2f0e7a6b3c48, api error UnauthorizedOperation: You are not authorized to perform this operation.";
    expect(after.degraded).toMatchObject({ status: "True" });
    expect(after.degraded.message).toBe(
      "4 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments | Error(s): [" +
        [INFRA, `${MS}a`, `${MS}b`, `${MS}c`].map((ms) => words(ms, before423Amis[ms]!)).join(", ") +
        "]",
    );
    expect(after.upgradeable).toEqual(
      expect.objectContaining({
        status: "False",
        reason: "ClusterBootImageSkewError",
        message: `Upgrades have been disabled due to boot image update failures: boot image controller is degraded: ${after.degraded.message}`,
      }),
    );
    expect(after.record).toEqual({ mode: "Automatic", automatic: { ocpVersion: "4.12.7" } });

    const s = await snapshotOf("ec2-denied-423");
    expect(assessSkew(s, "4.23.2").block).toEqual({
      reason: "ClusterBootImageSkewError",
      message: after.upgradeable.message,
      source: "cluster",
    });
    const check = evaluateReadiness(s, "4.24.0").checks.find((c) => c.id === "boot-image-skew")!;
    expect(check.status).toBe("fail");
    expect(check.detail).toContain("DescribeImages failed for ami-0422676091bb78731: operation error EC2: DescribeImages");
  });
});

describe("the collector", () => {
  it("sweeps the three clusters and stores them", async () => {
    await makeAllDue();
    const results = await new Collector(testCollectorOptions("marketplace")).runOnce();
    expect(results.map((r) => [r.cluster, r.outcome]).sort()).toEqual([
      ["ec2-denied-423", "ok"],
      ["marketplace-422", "ok"],
      ["marketplace-423", "ok"],
    ]);
  });
});

/** The AMIs the ec2-denied cluster's MachineSets boot from (the MCO could patch none of them). */
const before423Amis: Record<string, string> = {
  [INFRA]: STREAM_AMI,
  [`${MS}a`]: MARKETPLACE_CATALOG[0]!.imageId,
  [`${MS}b`]: MARKETPLACE_CATALOG[1]!.imageId,
  [`${MS}c`]: STREAM_AMI,
};
