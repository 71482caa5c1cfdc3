import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
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
import { serverUrl, useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { changeRollout, proposeRollout, rolloutView } from "./manage";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { advanceRollouts, DEFAULT_RUNNER_OPTIONS } from "./runner";

/**
 * Rollouts run by their runner against 80 simulated clusters over real HTTP, on real Postgres: the
 * simulated CVO plays each upgrade (in scaled time), and the simulator counts every write it gets.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
const database = useMigratedDatabase();

const NAMES = Array.from({ length: 80 }, (_, i) => `c${String(i).padStart(2, "0")}`);
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
  await changeRollout(id, "approve", "", alice, (await rolloutView(id)).digest);
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
const troubled: string[] = [];
const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
const degrade = (cluster: string, pool: string) => {
  setPoolDegraded(fleet, cluster, pool, true);
  degraded.push([cluster, pool]);
};
afterEach(async () => {
  for (const [cluster, pool] of degraded.splice(0)) setPoolDegraded(fleet, cluster, pool, false);
  for (const name of troubled.splice(0)) {
    fleet.setUpgradeTrouble(name, undefined);
    fleet.setFaults(name, undefined);
  }
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const cleanup of cleanups.splice(0)) await cleanup();
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

describe("what goes wrong on a cluster", () => {
  const reasonOf = async (id: string, cluster: string) =>
    (await getPool().query(`SELECT "reason" FROM "RolloutCluster" WHERE "rolloutId" = $1 AND "clusterName" = $2`, [id, cluster])).rows[0]
      .reason as string | null;

  it("an upgrade that fails says so in the CVO's words; one that hangs fails at its deadline", async () => {
    fleet.setUpgradeTrouble("c54", "fails");
    fleet.setUpgradeTrouble("c55", "hangs");
    troubled.push("c54", "c55");
    const id = await planned(["c54", "c55"], { maxFailures: 2, progressDeadline: "1h" });
    await runUntil(async () => (await states(id)).c54 === "failed");
    expect(await reasonOf(id, "c54")).toBe("the update is failing: Cluster operator machine-config is degraded");
    await runUntil(async () => /waiting on machine-config/.test((await reasonOf(id, "c55")) ?? ""));
    expect(await reasonOf(id, "c55")).toMatch(
      /^updating: Working towards 4\.19\.11: 776 of 800 done \(97% complete\), waiting on machine-config$/,
    );
    // An hour and more later (in the runner's eyes) the hanging upgrade is past its deadline.
    await advanceRollouts(new Date(Date.now() + 2 * 3_600_000));
    expect(await states(id)).toMatchObject({ c54: "failed", c55: "failed" });
    expect(await reasonOf(id, "c55")).toBe("did not finish within the progress deadline (1 h)");
  }, 60_000);

  it("a cluster that goes offline mid-wave is followed again when it is back, and written once", async () => {
    const id = await planned(["c56", "c57"], { maxFailures: 0 });
    await advanceRollouts();
    expect([cvPatches("c56"), cvPatches("c57")]).toEqual([1, 1]);
    fleet.setFaults("c56", { errorEvery: 1, errorStatus: 503 });
    troubled.push("c56");
    await advanceRollouts();
    await advanceRollouts();
    expect((await states(id)).c56).toBe("running");
    expect(await reasonOf(id, "c56")).toMatch(/^cannot (reach it|read ClusterVersion) now: /);
    fleet.setFaults("c56", undefined);
    await runUntil(async () => (await status(id)).status === "completed");
    expect(await states(id)).toMatchObject({ c56: "succeeded", c57: "succeeded" });
    expect([cvPatches("c56"), cvPatches("c57")]).toEqual([1, 1]);
  }, 60_000);

  it("a runner killed with SIGKILL mid-wave is replaced, and no cluster is written twice", async () => {
    const clusters = NAMES.slice(20, 40);
    // Slow answers keep writes in flight, so the kill lands between intent, write and record.
    for (const name of clusters) {
      fleet.setFaults(name, { latencyMs: 150 });
      troubled.push(name);
    }
    const id = await planned(clusters, { maxConcurrency: 5, maxFailures: 0 });
    const runner = () => {
      const child = spawn(process.execPath, ["--import", "tsx", path.join(__dirname, "../testing/rolloutRunnerProcess.ts")], {
        // A claim of the killed runner runs out after 3 s, so the next takes its steps over soon.
        env: { ...process.env, FLEETSKEW_TEST_CLAIM_LEASE_MS: "3000" },
        stdio: ["ignore", "inherit", "inherit"],
      });
      children.push(child);
      return child;
    };
    const started = async () =>
      Number(
        (await getPool().query(`SELECT count(*) FROM "RolloutCluster" WHERE "rolloutId" = $1 AND "startedAt" IS NOT NULL`, [id])).rows[0]
          .count,
      );
    const first = runner();
    const deadline = Date.now() + 60_000;
    while ((await started()) < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));
    expect(await started()).toBeGreaterThanOrEqual(7);
    expect((await status(id)).status).toBe("running");

    const second = runner();
    const end = Date.now() + 120_000;
    while ((await status(id)).status !== "completed" && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    second.kill("SIGKILL");
    expect((await status(id)).status).toBe("completed");
    const s = await states(id);
    expect(clusters.filter((n) => s[n] !== "succeeded")).toEqual([]);
    expect(clusters.map(cvPatches)).toEqual(clusters.map(() => 1));
  }, 200_000);

  it("Postgres restarted under a running rollout, three times, mid-wave: every cluster is written once and the rollout completes", async () => {
    const clusters = NAMES.slice(60, 80);
    // Slow answers keep writes in flight while the connections are cut.
    for (const name of clusters) {
      fleet.setFaults(name, { latencyMs: 150 });
      troubled.push(name);
    }
    const id = await planned(clusters, { maxConcurrency: 5, maxFailures: 0 });
    // What a restart looks like from the console: a session of its own (on the server's other
    // database, so that it may refuse connections to this one) ends every session of the test
    // database; while `refuse` holds, new ones are refused ("not currently accepting connections").
    // The server itself, which other tests share, is left alone.
    const { name } = database();
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const cut = async () =>
      Number(
        (
          await admin.query(
            `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
            [name],
          )
        ).rows[0].n,
      );
    const refuse = (refusing: boolean) => admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS ${refusing ? "false" : "true"}`);
    // A loaded database: each change of a rollout's clusters takes 100 ms, so cuts land on statements in flight.
    await getPool()
      .query(`CREATE FUNCTION slow_rollout_changes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.1); RETURN NULL; END $$;
      CREATE TRIGGER slow_rollout_changes BEFORE UPDATE ON "RolloutCluster" FOR EACH STATEMENT EXECUTE FUNCTION slow_rollout_changes()`);
    // The runner ticks as its background job does: a tick that throws is counted and the next one runs.
    const logged: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
    let ticking = true;
    let failedTicks = 0;
    const runner = (async () => {
      while (ticking) {
        // A claim whose record was cut off runs out after 3 s (instead of minutes), then the step is confirmed.
        await advanceRollouts(new Date(), { ...DEFAULT_RUNNER_OPTIONS, leaseMs: 3_000 }).catch(() => failedTicks++);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    cleanups.push(async () => {
      ticking = false;
      await runner;
      spy.mockRestore();
      await refuse(false).catch(() => undefined);
      await admin.end();
      await getPool().query(
        `DROP TRIGGER IF EXISTS slow_rollout_changes ON "RolloutCluster"; DROP FUNCTION IF EXISTS slow_rollout_changes()`,
      );
    });
    // The test's own reads share the console's pool: they retry over an outage, as a person reloading would.
    const read = async <T>(query: () => Promise<T>): Promise<T> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await query();
        } catch (error) {
          if (attempt > 50) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    // Steps whose write was claimed (and so is being sent): a cut then lands between the write and its record.
    const startedSteps = async () =>
      Number(
        (await getPool().query(`SELECT count(*) FROM "RolloutCluster" WHERE "rolloutId" = $1 AND "attempts" > 0`, [id])).rows[0].count,
      );
    const troubleSeen = () => failedTicks + logged.length;

    // Three outages, in waves 0, 1 and 2 (5 clusters each) while their steps are written; the second
    // also refuses new connections for 2.5 s. Sessions opened again meanwhile are cut too, for 1.5 s:
    // a write to a cluster takes about half a second, so the records that follow it fall inside.
    let terminated = 0;
    const seen: number[] = [];
    // Past this, the test stops waiting and its assertions say what did not happen.
    const giveUp = Date.now() + 50_000;
    for (const [steps, refusing] of [
      [1, false],
      [6, true],
      [11, false],
    ] as const) {
      while ((await read(startedSteps)) < steps && Date.now() < giveUp) await new Promise((r) => setTimeout(r, 10));
      seen.push(troubleSeen());
      if (refusing) await refuse(true);
      for (const stop = Date.now() + 1_500; Date.now() < stop;) {
        terminated += await cut();
        await new Promise((r) => setTimeout(r, 20));
      }
      if (refusing) {
        await new Promise((r) => setTimeout(r, 1_000));
        await refuse(false);
      }
    }
    while ((await read(() => status(id))).status !== "completed" && Date.now() < giveUp) await new Promise((r) => setTimeout(r, 200));
    ticking = false;
    await runner;
    seen.push(troubleSeen());

    // The outages reached the runner: ticks failed or steps' records could not be written (how many of
    // the three did depends on where the runner was when each began, which a loaded machine moves).
    expect(terminated).toBeGreaterThan(0);
    expect(seen.at(-1)! - seen[0]!).toBeGreaterThan(0);
    expect(logged.some((l) => /^fleetskew: rollout \d+:/.test(l))).toBe(true);
    expect((await status(id)).status).toBe("completed");
    const s = await states(id);
    expect(clusters.filter((n) => s[n] !== "succeeded")).toEqual([]);
    // Every patch request the simulated API server received, taken or refused with a conflict.
    expect(clusters.map(cvPatches)).toEqual(clusters.map(() => 1));
    // Some steps lost their record of being written and were written again: the cluster confirmed them.
    const confirmed = await getPool().query(
      `SELECT count(*) FROM "AuditEvent" WHERE "action" = 'cluster.write' AND "targetId" = ANY($1) AND "summary" LIKE '%desiredUpdate already set'`,
      [clusters],
    );
    expect(Number(confirmed.rows[0].count)).toBeGreaterThan(0);
  }, 90_000);
});
