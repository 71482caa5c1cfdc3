import { FLEET_WIDE } from "../domain/grants";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { evaluateReadiness } from "../domain/readiness";
import { ClusterClient } from "../kube/client";
import { setBootImageSkewEnforcement } from "../kube/writers";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { Reconciler, scaledClock } from "../simulator/reconciler";
import { startTestSimulator } from "../simulator/testing";
import { findClusterSummary } from "../store/clusters";
import { getDb } from "../store/db";
import { findClusterState } from "../store/history";
import { claimDueClusters, countDirectClusters, makeAllDue, makeDue } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials, testCollectorOptions } from "../testing/fleet";
import { fleetTimeline } from "../fleet/fleet";
import { FLEET_TIMELINE_DAYS, timeWindow } from "../fleet/requestContract";
import { metricsText } from "../fleet/metrics";
import { MCO_SKEW_LIMITS } from "../domain/skew";
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
const snapshotOf = async (name: string) => (await stateOf(name))!.snapshot!;
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
    // The fleet table names a cause (its admin gates come first, then the skew), not the
    // Upgradeable=False that reports them.
    expect(await stateOf("prod-east-422")).toMatchObject({ readinessStatus: "fail", readinessBlocker: "Admin gates" });
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
    expect(legacy.managedMachineSets.spec, "pruned by the 4.16 API").toBeNull();
    expect(await stateOf("legacy")).toMatchObject({ skewStatus: "ok" });
  });

  it("exports the fleet in Prometheus text, every status present even at 0", async () => {
    const text = await metricsText();
    // legacy serves prod-east's objects at 4.16, whose MachineConfiguration API (Default feature set)
    // has no managedBootImages: the Partial selection is pruned, and without it the platform's
    // default management keeps it within the 4.22 limit.
    expect(text).toContain('fleetskew_clusters_by_skew_status{status="at-risk"} 1'); // prod-east
    expect(text).toContain('fleetskew_clusters_by_skew_status{status="ok"} 1'); // legacy
    expect(text).toContain('fleetskew_clusters_by_skew_status{status="blocked"} 1'); // prod-east-422
    expect(text).toContain('fleetskew_clusters_by_skew_status{status="opted-out"} 0');
    expect(text).toContain('fleetskew_clusters_by_readiness{status="pass"} 0');
    expect(text).toMatch(/^fleetskew_sweep_duration_seconds_count 3$/m);
  });

  it("the fleet timeline counts every cluster per day and says how many of them come from inferred history", async () => {
    const t = await fleetTimeline(FLEET_WIDE, timeWindow(FLEET_TIMELINE_DAYS, new Date("2022-01-01")));
    const total = (d: (typeof t.days)[number]) => Object.values(d.counts).reduce((a, b) => a + b, 0);
    const today = t.days.at(-1)!;
    expect(today.counts).toMatchObject({ "at-risk": 1, ok: 1, blocked: 1 });
    expect(today.inferred).toBe(0);
    // Before the first sweep every cluster counted was inferred from its ClusterVersion history.
    const backfilled = t.days.filter((d) => d.inferred > 0);
    expect(backfilled.length).toBeGreaterThan(0);
    expect(backfilled.every((d) => d.inferred === total(d))).toBe(true);
    expect(backfilled.at(-1)!.day < today.day).toBe(true);
  });

  it("stores nothing new when nothing changed, only when it was last seen", async () => {
    const before = await factCount();
    const seenBefore = (await stateOf("prod-east"))!.lastSeenAt;
    const results = await new Collector(options("a")).runOnce();
    expect(results.every((r) => r.stored === "unchanged")).toBe(true);
    expect(await factCount()).toBe(before);
    expect((await stateOf("prod-east"))!.lastSeenAt > seenBefore).toBe(true);
  });

  it("does not evaluate a steady cluster again, yet stores new verdicts as soon as the skew limits change", async () => {
    let limits = MCO_SKEW_LIMITS;
    const collector = new Collector(options("limits", { limits: () => limits }));
    await collector.runOnce();
    await makeAllDue();
    expect((await collector.runOnce()).map((r) => r.stored)).toEqual(["unchanged", "unchanged", "unchanged"]);
    const before = (await stateOf("prod-east"))!;
    // A limit enforced from 4.19 on, which prod-east (4.19.10, booting 4.12.7) no longer passes.
    limits = [{ fromRelease: "4.19.0", ocpVersion: "4.15.0", rhelVersion: "9.4" }];
    await makeAllDue();
    const stricter = await collector.runOnce();
    expect(stricter.find((r) => r.cluster === "prod-east")!.stored).toBe("written");
    expect((await stateOf("prod-east"))!.skewStatus).not.toBe(before.skewStatus);
    limits = MCO_SKEW_LIMITS;
    await makeAllDue();
    expect((await collector.runOnce()).find((r) => r.cluster === "prod-east")!.stored).toBe("written");
    expect((await stateOf("prod-east"))!.skewStatus).toBe(before.skewStatus);
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

  it.each([
    ["answers 500 partway through its reads", { errorEvery: 5, errorStatus: 500 }],
    ["sends a truncated body partway through its reads", { malformedEvery: 5 }],
  ])("that %s is marked stale and keeps its last state; the others are swept", async (_what, faults) => {
    const before = await stateOf("prod-east");
    const cluster = fleet.get("prod-east")!;
    const requestsBefore = cluster.requestCount;
    fleet.setFaults("prod-east", faults);
    const results = await new Collector(options("a")).runOnce();
    // Some of its reads were answered before one failed: the failure came mid-sweep.
    expect(cluster.requestCount - requestsBefore).toBeGreaterThan(5);
    expect(results.find((r) => r.cluster === "prod-east")!.outcome).toBe("failed");
    const summary = (await findClusterSummary("prod-east"))!;
    expect(summary.lastContactStatus).toBe("stale");
    expect((await stateOf("prod-east"))!.snapshot).toEqual(before!.snapshot);
    for (const name of ["prod-east-422", "legacy"]) expect(results.find((r) => r.cluster === name)!.outcome).toBe("ok");
  });

  it("that serves an object of an unexpected shape is marked stale with the object named, not stored half", async () => {
    const before = await stateOf("prod-east");
    const factsBefore = await factCount();
    const cluster = fleet.get("prod-east")!;
    const info = cluster.kinds.find((k) => k.kind === "MachineSet")!;
    const [victim] = cluster.store.list(info, "openshift-machine-api") as { metadata: { name: string }; spec: Record<string, unknown> }[];
    const original = structuredClone(victim!);
    cluster.store.replace(info, "openshift-machine-api", victim!.metadata.name, {
      ...victim!,
      spec: { ...victim!.spec, replicas: "three" },
    } as never);
    try {
      const results = await new Collector(options("a")).runOnce();
      expect(results.find((r) => r.cluster === "prod-east")!.outcome).toBe("failed");
      const summary = (await findClusterSummary("prod-east"))!;
      expect(summary.lastContactStatus).toBe("stale");
      expect(summary.lastContactError).toContain(victim!.metadata.name);
      // A MachineSet missing from a partial read would look like a removal: nothing of it is stored.
      expect((await stateOf("prod-east"))!.snapshot).toEqual(before!.snapshot);
      expect(await factCount()).toBe(factsBefore);
      for (const name of ["prod-east-422", "legacy"]) expect(results.find((r) => r.cluster === name)!.outcome).toBe("ok");
    } finally {
      const current = cluster.store.get(info, "openshift-machine-api", victim!.metadata.name) as { metadata: object };
      cluster.store.replace(info, "openshift-machine-api", victim!.metadata.name, { ...original, metadata: current.metadata } as never);
    }
  });

  it("that hangs does not hold up the others: they are swept while it waits for its timeout", async () => {
    fleet.setFaults("prod-east", { timeout: true });
    const order: string[] = [];
    // Two slots for three clusters: the hanging cluster holds one, the other two share the second.
    await new Collector(options("a", { concurrency: 2, onSweep: (r) => order.push(r.cluster) })).runOnce();
    expect(order.at(-1)).toBe("prod-east");
    expect(order.slice(0, 2).sort()).toEqual(["legacy", "prod-east-422"]);
  });

  it("that answers slower than the sweep's deadline is given up there: nothing more is asked of it", async () => {
    const cluster = fleet.get("prod-east")!;
    // Every read answered after a second: the sweep gives up after one, its reads still in flight.
    fleet.setFaults("prod-east", { latencyMs: 1_000 });
    const before = cluster.requestCount;
    const collector = new Collector(options("a", { clusterTimeoutMs: 1_000, client: { timeoutMs: 5_000, retries: 0, retryDelayMs: 10 } }));
    const results = await collector.runOnce();
    expect(results.find((r) => r.cluster === "prod-east")).toMatchObject({ outcome: "failed" });
    const sentByDeadline = cluster.requestCount - before;
    expect(sentByDeadline).toBeGreaterThan(0);
    // Had the sweep's reads gone on, their answers would lead to more (the pools' rendered
    // MachineConfigs are asked for once the pools are read).
    await new Promise((r) => setTimeout(r, 2_500));
    expect(cluster.requestCount - before).toBe(sentByDeadline);
    expect((await findClusterSummary("prod-east"))!.lastContactError).toContain("did not finish within 1 s");
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

describe("a collector process killed mid-sweep", () => {
  const root = path.resolve(__dirname, "../..");
  const setPaused = (name: string, paused: boolean) => {
    const cluster = fleet.get(name)!;
    const info = cluster.kinds.find((k) => k.kind === "MachineConfigPool")!;
    const pool = cluster.store.get(info, undefined, "worker") as { spec: Record<string, unknown> };
    cluster.store.replace(info, undefined, "worker", { ...pool, spec: { ...pool.spec, paused } } as never);
  };
  const pausedFacts = async () =>
    (await getDb().clusterFact.findMany({ where: { fact: "pool", key: "worker" }, include: { cluster: { select: { name: true } } } }))
      .filter((f) => (f.value as { paused?: boolean }).paused === true)
      .map((f) => f.cluster.name)
      .sort();

  it("loses and duplicates nothing: its leases expire and another worker stores each change once", async () => {
    const names = ["legacy", "prod-east", "prod-east-422"];
    for (const name of names) {
      setPaused(name, true);
      // Slow answers keep its sweeps in flight long enough to kill it in the middle of them.
      fleet.setFaults(name, { latencyMs: 400 });
    }
    await makeAllDue();
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/collector.ts")], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: "production",
        DATABASE_URL: process.env.DATABASE_URL,
        FLEETSKEW_SECRET_KEY: process.env.FLEETSKEW_SECRET_KEY,
        FLEETSKEW_SWEEP_TIMEOUT_SECONDS: "5",
        FLEETSKEW_KUBE_RETRIES: "0",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    try {
      const deadline = Date.now() + 30_000;
      let leased = 0;
      while (leased < names.length && Date.now() < deadline) {
        leased = await getDb().sweepSchedule.count({ where: { leaseOwner: { startsWith: "collector:" } } });
        if (leased < names.length) await new Promise((r) => setTimeout(r, 50));
      }
      expect(leased, `the collector process never claimed the fleet:\n${output}`).toBe(names.length);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      child.kill("SIGKILL");
    }
    expect(await exited).toBe("SIGKILL");
    // Killed with its reads in flight: nothing of this sweep was stored.
    expect(await pausedFacts()).toEqual([]);

    for (const name of names) fleet.setFaults(name, undefined);
    const factsBefore = await factCount();
    // Once the dead worker's leases have expired another worker takes the clusters over.
    // Collector.leaseMs() for the child's 5 s sweep deadline: twice the deadline and a margin as long as it.
    const leaseMs = 5_000 * 2 + 5_000;
    const results = await new Collector(options("survivor", { now: () => new Date(Date.now() + leaseMs + 1_000) })).runOnce();
    expect(results.map((r) => [r.cluster, r.outcome, r.stored]).sort()).toEqual(names.map((n) => [n, "ok", "written"]));
    // Each cluster's change is stored exactly once, and no fact appears twice.
    expect(await pausedFacts()).toEqual(names);
    expect(await factCount()).toBeGreaterThan(factsBefore);
    const duplicates = await getDb().$queryRaw<{ n: bigint }[]>`
      SELECT count(*) AS n FROM (
        SELECT 1 FROM "ClusterFact" GROUP BY "clusterId", "fact", "key", "at", "inferred" HAVING count(*) > 1) d`;
    expect(Number(duplicates[0]!.n)).toBe(0);
    for (const name of names) setPaused(name, false);
  });
});

describe("the collector with watched reads", () => {
  it("reads a steady cluster with a fraction of the requests, sees a change, and lets go of clusters it no longer sweeps", async () => {
    const sessions = new Set<unknown>();
    const track = (session: import("node:http2").ServerHttp2Session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    };
    sim.server.on("session", track);
    const collector = new Collector(
      options("watching", { client: { timeoutMs: 5_000, retries: 0, retryDelayMs: 10, watchClusters: 100 } }),
    );
    const cluster = fleet.get("prod-east")!;
    try {
      const requests = async () => {
        const before = cluster.requestCount;
        await makeDue("prod-east");
        const [result] = (await collector.runOnce()).filter((r) => r.cluster === "prod-east");
        return { result, requests: cluster.requestCount - before };
      };
      const first = await requests();
      const steady = await requests();
      expect(first.result?.outcome).toBe("ok");
      expect(steady.result).toMatchObject({ outcome: "ok", stored: "unchanged" });
      expect(steady.requests).toBeLessThan(first.requests / 2);
      // Held open between sweeps: the connection that carries the watches.
      expect(sessions.size).toBeGreaterThan(0);

      // A MachineSet added reaches the next sweep through the watch, without asking for MachineSets.
      const info = cluster.kinds.find((k) => k.kind === "MachineSet")!;
      const [set] = cluster.store.list(info, "openshift-machine-api");
      const copy = structuredClone(set!);
      cluster.store.create(info, "openshift-machine-api", {
        ...copy,
        metadata: { name: "watched-extra", namespace: "openshift-machine-api", labels: copy.metadata.labels },
      });
      try {
        await new Promise((r) => setTimeout(r, 100));
        const changed = await requests();
        expect(changed.result).toMatchObject({ outcome: "ok", stored: "written" });
        expect((await snapshotOf("prod-east")).machineSets.map((m) => m.machineSet)).toContain("watched-extra");
      } finally {
        cluster.store.delete(info, "openshift-machine-api", "watched-extra");
      }

      // Three intervals (15 minutes here) without a sweep of a cluster: its client, connection and watches go.
      await getDb().sweepSchedule.updateMany({ data: { nextSweepAt: new Date(Date.now() + 3_600_000) } });
      const realNow = Date.now;
      Date.now = () => realNow() + 16 * 60_000;
      try {
        expect(await collector.runOnce()).toEqual([]);
      } finally {
        Date.now = realNow;
      }
      await vi.waitFor(() => expect(sessions.size).toBe(0), { timeout: 5_000 });
    } finally {
      sim.server.off("session", track);
      await collector.stop();
    }
  });

  it("watches only while every cluster it reads directly fits within its limit, and lets the watches go when the fleet outgrows it", async () => {
    const sessions = new Set<unknown>();
    const track = (session: import("node:http2").ServerHttp2Session) => {
      sessions.add(session);
      session.once("close", () => sessions.delete(session));
    };
    const registered = await countDirectClusters(null);
    expect(registered).toBeGreaterThan(2);
    // One cluster set aside: the rest fit the limit exactly.
    const other = (await getDb().cluster.findFirst({ where: { name: { not: "prod-east" }, hubId: null, offline: false } }))!;
    await getDb().cluster.update({ where: { id: other.id }, data: { offline: true } });
    sim.server.on("session", track);
    const collector = new Collector(
      options("fitting", { client: { timeoutMs: 5_000, retries: 0, retryDelayMs: 10, watchClusters: registered - 1 } }),
    );
    const cluster = fleet.get("prod-east")!;
    const realNow = Date.now;
    try {
      const requests = async () => {
        const before = cluster.requestCount;
        await makeDue("prod-east");
        const [result] = (await collector.runOnce()).filter((r) => r.cluster === "prod-east");
        expect(result?.outcome).toBe("ok");
        return cluster.requestCount - before;
      };
      // The first sweep lists and opens the watches; the next reads from them.
      const first = await requests();
      const watched = await requests();
      expect(watched).toBeLessThan(first / 2);
      expect(sessions.size).toBeGreaterThan(0);

      // The cluster is back: one more than the limit, so the collector (counting again a minute on) watches none.
      await getDb().cluster.update({ where: { id: other.id }, data: { offline: false } });
      Date.now = () => realNow() + 61_000;
      // Every kind is asked for again, each sweep (some twenty GETs where a watched sweep sends a few).
      const full = await requests();
      expect(full).toBeGreaterThan(watched + 10);
      expect(await requests()).toBe(full);
      // Nothing stays connected to the cluster between its sweeps.
      await vi.waitFor(() => expect(sessions.size).toBe(0), { timeout: 5_000 });
    } finally {
      Date.now = realNow;
      await getDb().cluster.update({ where: { id: other.id }, data: { offline: false } });
      sim.server.off("session", track);
      await collector.stop();
    }
  });
});
