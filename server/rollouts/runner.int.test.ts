import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { prodEastObjects } from "../simulator/scenarios/prodEast";
import { Collector } from "../collector/collector";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { DEFAULT_RECONCILER_OPTIONS, Reconciler, scaledClock } from "../simulator/reconciler";
import { setPoolDegraded } from "../simulator/testing";
import { getPool } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { testActor } from "../testing/actors";
import type { Actor } from "../auth/actor";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { changeRollout, proposeRollout } from "./manage";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { advanceRollouts } from "./runner";

/**
 * Rollouts run by their runner against 60 simulated clusters over real HTTP, on real Postgres: the
 * simulated CVO plays each upgrade (in scaled time), and the simulator counts every write it gets.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

const NAMES = Array.from({ length: 60 }, (_, i) => `c${String(i).padStart(2, "0")}`);
let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let tom: Actor;
let alice: Actor;

const cvPatches = (cluster: string) => fleet.get(cluster)!.writeRequests.get("patch ClusterVersion") ?? 0;
const states = async (id: string) =>
  Object.fromEntries(
    (await getPool().query(`SELECT "clusterName", "state" FROM "RolloutCluster" WHERE "rolloutId" = $1`, [id])).rows.map((r) => [
      r.clusterName,
      r.state,
    ]),
  ) as Record<string, string>;
const status = async (id: string) =>
  (await getPool().query(`SELECT "status", "statusReason" FROM "Rollout" WHERE "id" = $1`, [id])).rows[0];

async function planned(clusters: string[], strategy: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const request = RolloutRequestSchema.parse({ kind: "upgrade", target: "4.19.11", selection: { clusters }, strategy, ...extra });
  const { answer } = await proposeRollout(request, tom);
  const id = (answer as { id: string }).id;
  await changeRollout(id, "approve", "", alice);
  return id;
}

/** Ticks the runner until `done` holds (or a deadline passes), as the background job would. */
async function runUntil(done: () => Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error("the rollout did not get there in time");
    await advanceRollouts();
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  fleet = new Fleet();
  for (const name of NAMES)
    fleet.add({ name, ocpVersion: "4.19.10", token: `${name}-token`, readOnlyToken: `${name}-reader`, objects: prodEastObjects });
  sim = await startSimulator(fleet);
  reconciler = new Reconciler(fleet, scaledClock(120), { ...DEFAULT_RECONCILER_OPTIONS, upgradeSeconds: 60 });
  reconciler.start(50);
  await registerSimulatedClusters(sim, fleet.list());
  tom = await testActor("tom", "technician");
  alice = await testActor("alice", "approver");
  // Every cluster swept and reachable before the plans are made: on a loaded machine a first sweep may time out.
  for (let attempt = 0; attempt < 5; attempt++) {
    await makeAllDue();
    await new Collector(testCollectorOptions("test")).runOnce();
    const swept = await getPool().query(
      `SELECT count(*) FROM "Cluster" c JOIN "ClusterState" s ON s."clusterId" = c."id" WHERE c."lastContactStatus" = 'ok'`,
    );
    if (Number(swept.rows[0].count) === NAMES.length) break;
  }
}, 300_000);
/** Pools a test degraded; each test leaves the fleet healthy and no rollout holding clusters, whether it passed or not. */
const degraded: [string, string][] = [];
const degrade = (cluster: string, pool: string) => {
  setPoolDegraded(fleet, cluster, pool, true);
  degraded.push([cluster, pool]);
};
afterEach(async () => {
  for (const [cluster, pool] of degraded.splice(0)) setPoolDegraded(fleet, cluster, pool, false);
  await getPool().query(`UPDATE "Rollout" SET "status" = 'aborted', "finishedAt" = now() WHERE "status" <> ALL('{completed,aborted}')`);
});
afterAll(() => {
  reconciler.stop();
  return sim.close();
});

describe("running an upgrade rollout", () => {
  it("stops before wave 1 when a canary fails, having written only the canaries", async () => {
    degrade("c00", "worker");
    const id = await planned(NAMES, { canaries: 2, maxConcurrency: 10, maxFailures: 2 });
    await runUntil(async () => (await status(id)).status === "paused");
    const s = await states(id);
    expect(s.c00).toBe("failed");
    expect((await status(id)).statusReason).toBe("c00 failed in canaries, which tolerates no failure");
    expect(NAMES.slice(2).filter((n) => s[n] !== "pending")).toEqual([]);
    expect(NAMES.slice(2).filter((n) => cvPatches(n) !== 0)).toEqual([]);
    expect(cvPatches("c00")).toBe(1);
    const reason = (await getPool().query(`SELECT "reason" FROM "RolloutCluster" WHERE "rolloutId" = $1 AND "clusterName" = 'c00'`, [id]))
      .rows[0].reason;
    expect(reason).toMatch(/^pool worker is degraded/);
    await changeRollout(id, "abort", "canary failed", alice);
  }, 120_000);

  it("pauses when a wave has 3 failures and maxFailures is 2, before the next wave", async () => {
    const clusters = NAMES.slice(10, 40);
    for (const n of ["c12", "c15", "c18"]) degrade(n, "master");
    const id = await planned(clusters, { maxConcurrency: 10, maxFailures: 2 });
    await runUntil(async () => (await status(id)).status === "paused");
    const s = await states(id);
    expect(["c12", "c15", "c18"].map((n) => s[n])).toEqual(["failed", "failed", "failed"]);
    expect((await status(id)).statusReason).toBe("3 clusters failed, more than the 2 the plan tolerates");
    expect(NAMES.slice(20, 40).filter((n) => s[n] !== "pending" || cvPatches(n) !== 0)).toEqual([]);
    await changeRollout(id, "abort", "three failed", alice);
  }, 120_000);

  it("upgrades every cluster, wave after wave, writing each exactly once, even when a write was never recorded", async () => {
    const clusters = NAMES.slice(40, 52);
    const id = await planned(clusters, { canaries: 1, maxConcurrency: 5 });
    // A runner that stopped right after writing c40, before recording it: the next one must confirm, not write again.
    await advanceRollouts();
    expect(cvPatches("c40")).toBe(1);
    await getPool().query(`UPDATE "RolloutCluster" SET "writtenAt" = NULL WHERE "rolloutId" = $1 AND "clusterName" = 'c40'`, [id]);
    await runUntil(async () => (await status(id)).status === "completed", 90_000);
    const s = await states(id);
    expect(clusters.every((n) => s[n] === "succeeded")).toBe(true);
    expect(clusters.map(cvPatches)).toEqual(clusters.map(() => 1));
    const cv = fleet.get("c45")!;
    expect(cv.spec.ocpVersion).toBe("4.19.11");
  }, 150_000);

  it("holds a wave while its window is closed, writing nothing", async () => {
    const now = new Date();
    // A daily window that opened two hours ago and lasted one: closed now, open again tomorrow.
    const opens = new Date(now.getTime() - 2 * 3_600_000);
    const schedule = `${opens.getUTCMinutes()} ${opens.getUTCHours()} * * *`;
    const id = await planned(["c52", "c53"], {}, { windows: { default: { schedule, duration: "2h", timeZone: "UTC" } } });
    await advanceRollouts();
    const rows = (
      await getPool().query(`SELECT "state", "windowOpensAt" FROM "RolloutCluster" WHERE "rolloutId" = $1 ORDER BY "clusterName"`, [id])
    ).rows;
    expect(rows.map((r) => r.state)).toEqual(["waiting-window", "waiting-window"]);
    expect(new Date(`${rows[0].windowOpensAt.toISOString?.() ?? rows[0].windowOpensAt}`).getTime()).toBeGreaterThan(now.getTime());
    expect([cvPatches("c52"), cvPatches("c53")]).toEqual([0, 0]);
    await changeRollout(id, "abort", "window test over", alice);
  }, 60_000);
});
