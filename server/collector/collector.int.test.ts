import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluateReadiness } from "../domain/readiness";
import type { ClusterSnapshot } from "../domain/snapshot";
import { ClusterClient } from "../kube/client";
import { setBootImageSkewEnforcement } from "../kube/writers";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { Reconciler, scaledClock } from "../simulator/reconciler";
import { startTestSimulator } from "../simulator/testing";
import { findClusterSummary } from "../store/clusters";
import { getDb } from "../store/db";
import { findClusterState } from "../store/history";
import { claimDueClusters, makeAllDue } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials, testCollectorOptions } from "../testing/fleet";
import { metricsText } from "../fleet/metrics";
import { Collector } from "./collector";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let fleet: Fleet;
let sim: SimulatorServer;

const options = testCollectorOptions;

async function stateOf(name: string) {
  const summary = await findClusterSummary(name);
  return summary ? findClusterState(summary.id) : null;
}
const snapshotOf = async (name: string) => (await stateOf(name))!.snapshot as ClusterSnapshot;
const factCount = () => getDb().clusterFact.count();
const factsOf = async (name: string) =>
  getDb().clusterFact.findMany({
    where: { cluster: { name } },
    orderBy: { id: "asc" },
    select: { fact: true, key: true, inferred: true, at: true },
  });

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  await registerSimulatedClusters(sim, fleet.list());
});
afterAll(() => sim.close());
beforeEach(async () => {
  for (const c of fleet.list()) fleet.setFaults(c.name, undefined);
  await makeAllDue();
});

describe("the collector", () => {
  it("sweeps every cluster, stores a snapshot and backfills the past on first contact", async () => {
    const results = await new Collector(options("a")).runOnce();
    expect(results.map((r) => [r.cluster, r.outcome]).sort()).toEqual([
      ["legacy", "ok"],
      ["prod-east", "ok"],
      ["prod-east-422", "ok"],
    ]);
    const prodEast = await stateOf("prod-east");
    expect(prodEast).toMatchObject({ version: "4.19.10", skewStatus: "at-risk", oldestBootImage: "4.12.7" });
    const facts = await factsOf("prod-east");
    // Versions over time come from ClusterVersion history, inferred; the observed facts follow.
    const inferredVersions = facts.filter((f) => f.fact === "version" && f.inferred);
    expect(inferredVersions.length).toBeGreaterThan(3);
    expect(inferredVersions[0]!.at.getTime()).toBeLessThan(new Date("2024-01-01").getTime());
    expect(facts.filter((f) => f.fact === "bootImage" && !f.inferred).length).toBe((await snapshotOf("prod-east")).machineSets.length);
    // The legacy cluster forbids listing nodes: recorded as a problem, not a failure.
    const legacy = await snapshotOf("legacy");
    expect(legacy.problems.some((p) => p.part === "Nodes")).toBe(true);
    expect((await findClusterSummary("legacy"))!.lastContactStatus).toBe("ok");
  });

  it("exports the fleet in Prometheus text, every status present even at 0", async () => {
    const text = await metricsText();
    expect(text).toContain('fleetskew_clusters_by_skew_status{status="at-risk"} 2'); // prod-east and legacy
    expect(text).toContain('fleetskew_clusters_by_skew_status{status="blocked"} 1');
    expect(text).toContain('fleetskew_clusters_by_skew_status{status="opted-out"} 0');
    expect(text).toContain('fleetskew_clusters_by_readiness{status="pass"} 0');
    expect(text).toMatch(/^fleetskew_sweep_duration_seconds_count 3$/m);
  });

  it("stores nothing new when nothing changed, only when it was last seen", async () => {
    const before = await factCount();
    const seenBefore = (await stateOf("prod-east"))!.lastSeenAt;
    const results = await new Collector(options("a")).runOnce();
    expect(results.every((r) => r.stored === "unchanged")).toBe(true);
    expect(await factCount()).toBe(before);
    expect((await stateOf("prod-east"))!.lastSeenAt > seenBefore).toBe(true);
  });

  it("prod-east at 4.19.10: readiness for 4.22.3 warns that the MCO will block minor updates once there", async () => {
    const r = evaluateReadiness(await snapshotOf("prod-east"), "4.22.3");
    const skew = r.checks.find((c) => c.id === "boot-image-skew")!;
    expect(skew.status).toBe("warn");
    expect(skew.detail).toContain("ClusterBootImageSkewError");
    expect(skew.detail).toContain("4.12.7");
    expect(skew.detail).toContain("4.13.0");
  });

  it("prod-east-422: the skew check fails for 4.23 with the cluster's own message, passes for a z-stream, and clears after an acknowledgement", async () => {
    const snapshot = await snapshotOf("prod-east-422");
    const own = snapshot.machineConfigOperator!.find((c) => c.type === "Upgradeable")!;
    expect(own.reason).toBe("ClusterBootImageSkewError");
    const minor = evaluateReadiness(snapshot, "4.23.0").checks.find((c) => c.id === "boot-image-skew")!;
    expect(minor.status).toBe("fail");
    expect(minor.detail).toContain(own.message!);
    expect(evaluateReadiness(snapshot, "4.22.5").checks.find((c) => c.id === "boot-image-skew")!.status).toBe("pass");

    const cluster = fleet.get("prod-east-422")!;
    const client = new ClusterClient(simulatorCredentials(sim, cluster));
    await setBootImageSkewEnforcement(client, { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" } });
    new Reconciler(fleet, scaledClock(1)).reconcile(cluster);
    await makeAllDue();
    await new Collector(options("a")).runOnce();
    const after = await snapshotOf("prod-east-422");
    expect(evaluateReadiness(after, "4.23.0").checks.find((c) => c.id === "boot-image-skew")!.status).toBe("pass");
    expect((await stateOf("prod-east-422"))!.skewStatus).toBe("ok");
    const enforcement = await getDb().clusterFact.findMany({
      where: { cluster: { name: "prod-east-422" }, fact: "enforcement" },
      orderBy: { id: "asc" },
    });
    expect(enforcement.at(-1)!.value).toMatchObject({ mode: "Manual", rhcosVersion: "9.6.20250701-0" });
  });
});

describe("a misbehaving cluster", () => {
  it.each([
    ["returns 500s", { errorEvery: 1, errorStatus: 500 }],
    ["returns malformed bodies", { malformedEvery: 1 }],
    ["times out", { timeout: true }],
  ])("that %s is marked with the reason and keeps its last state; the others are swept", async (_what, faults) => {
    const before = await stateOf("prod-east");
    const others = await Promise.all(["prod-east-422", "legacy"].map(stateOf));
    fleet.setFaults("prod-east", faults);
    const results = await new Collector(options("a")).runOnce();
    const bad = results.find((r) => r.cluster === "prod-east")!;
    expect(bad.outcome).toBe("failed");
    const summary = (await findClusterSummary("prod-east"))!;
    expect(["stale", "unreachable"]).toContain(summary.lastContactStatus);
    expect(summary.lastContactError).toBeTruthy();
    expect((await stateOf("prod-east"))!.snapshot).toEqual(before!.snapshot);
    for (const [i, name] of ["prod-east-422", "legacy"].entries()) {
      expect(results.find((r) => r.cluster === name)!.outcome).toBe("ok");
      expect((await stateOf(name))!.lastSeenAt > others[i]!.lastSeenAt).toBe(true);
    }
    // Backed off: the failing cluster is not due again at once.
    const schedule = await getDb().sweepSchedule.findFirst({ where: { cluster: { name: "prod-east" } } });
    expect(schedule!.failures).toBeGreaterThan(0);
    expect(schedule!.nextSweepAt.getTime()).toBeGreaterThan(Date.now());
  });

  it("recovers on the next sweep once it answers again", async () => {
    const results = await new Collector(options("a")).runOnce();
    expect(results.find((r) => r.cluster === "prod-east")!.outcome).toBe("ok");
    expect((await findClusterSummary("prod-east"))!.lastContactStatus).toBe("ok");
  });
});

describe("several collectors", () => {
  it("never sweep one cluster twice at once", async () => {
    const results = (await Promise.all([new Collector(options("w1")).runOnce(), new Collector(options("w2")).runOnce()])).flat();
    expect(results.map((r) => r.cluster).sort()).toEqual(["legacy", "prod-east", "prod-east-422"]);
  });

  it("a collector killed mid-sweep loses nothing and duplicates nothing: its lease expires, another takes over", async () => {
    // Worker "dead" claims everything and never finishes (as if killed).
    const claimed = await claimDueClusters("dead", 10, 60_000);
    expect(claimed).toHaveLength(3);
    expect(await new Collector(options("alive")).runOnce()).toEqual([]);
    // After the lease expires another worker sweeps them.
    const later = () => new Date(Date.now() + 61_000);
    const before = await factCount();
    const results = await new Collector(options("alive", { now: later })).runOnce();
    expect(results).toHaveLength(3);
    expect(await factCount()).toBe(before);
    // The dead worker's late write is refused (it no longer holds the lease).
    const late = new Collector(options("dead"));
    const outcome = await late.sweep(claimed[0]!);
    expect(outcome.stored).toBe("lease-lost");
    expect(await factCount()).toBe(before);
  });
});
