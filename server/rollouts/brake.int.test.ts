import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../auth/actor";
import { Collector } from "../collector/collector";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { DEFAULT_RECONCILER_OPTIONS, Reconciler, scaledClock } from "../simulator/reconciler";
import { prodEastObjects } from "../simulator/scenarios/prodEast";
import { getPool } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { testActor } from "../testing/actors";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { decideClusters } from "./decisions";
import { changeRollout, proposeRollout, rolloutView } from "./manage";
import { advanceRollouts, DEFAULT_RUNNER_OPTIONS, type RunnerOptions } from "./runner";

/**
 * The brake holds at the next write: a wave of 500 simulated clusters, every write answered after
 * 200 ms, is aborted (or paused, or its clusters skipped) while its writes are being sent. The
 * simulator counts every ClusterVersion patch it receives; after the brake's answer it may receive
 * only the writes the answer said were in flight. And the steps a brake cannot stop are followed to
 * their end. Also: a cluster replaced under its name is never written; a cluster that answers every
 * write with 503 gets a bounded number of attempts, audited once.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

const WAVE = Array.from({ length: 500 }, (_, i) => `w${String(i).padStart(3, "0")}`);
const SMALL = ["x0", "x1", "x2"];
let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let tom: Actor;
let alice: Actor;

/** Short backoffs, so a test of bounded attempts takes seconds; everything else as deployed. */
const OPTIONS: RunnerOptions = { ...DEFAULT_RUNNER_OPTIONS, backoffMs: 50, maxBackoffMs: 200 };
const cvPatches = (cluster: string) => fleet.get(cluster)!.writeRequests.get("patch ClusterVersion") ?? 0;
const totalPatches = (names: string[]) => names.reduce((n, c) => n + cvPatches(c), 0);
const rows = async (id: string) =>
  (
    await getPool().query<{ clusterName: string; state: string; outcome: string | null; reason: string | null; attempts: number }>(
      `SELECT "clusterName", "state", "outcome", "reason", "attempts" FROM "RolloutCluster" WHERE "rolloutId" = $1 ORDER BY "clusterName"`,
      [id],
    )
  ).rows;

async function planned(clusters: string[], strategy: Record<string, unknown>) {
  const request = RolloutRequestSchema.parse({ kind: "upgrade", target: "4.19.11", selection: { clusters }, strategy });
  const { answer } = await proposeRollout(request, tom);
  const id = (answer as { id: string }).id;
  await changeRollout(id, "approve", "", alice, (await rolloutView(id)).digest);
  return id;
}

/** The runner's background job, ticking until stopped; a tick's failure is kept to fail the test. */
function tickInBackground() {
  let ticking = true;
  const failures: unknown[] = [];
  const done = (async () => {
    while (ticking) {
      await advanceRollouts(new Date(), OPTIONS).catch((error: unknown) => failures.push(error));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    failures,
    stop: async () => {
      ticking = false;
      await done;
    },
  };
}

const until = async (what: string, done: () => boolean | Promise<boolean>, ms = 90_000) => {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`${what} did not happen in time`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  fleet = new Fleet();
  for (const name of [...SMALL, ...WAVE])
    fleet.add({ name, ocpVersion: "4.19.10", token: `${name}-token`, readOnlyToken: `${name}-reader`, objects: prodEastObjects });
  sim = await startSimulator(fleet);
  // The simulated CVO upgrades in 60 simulated seconds, half a second here.
  reconciler = new Reconciler(fleet, scaledClock(120), { ...DEFAULT_RECONCILER_OPTIONS, upgradeSeconds: 60 });
  reconciler.start(100);
  await registerSimulatedClusters(
    sim,
    SMALL.map((n) => fleet.get(n)!),
  );
  tom = await testActor("tom", "technician");
  alice = await testActor("alice", "approver");
  // One cluster swept for real; the others are the same scenario, so they get its stored state
  // (sweeping 500 clusters is the collector's tests' business, not this one's).
  for (let attempt = 0; attempt < 5; attempt++) {
    await makeAllDue();
    await new Collector(testCollectorOptions("test", { concurrency: 8 })).runOnce();
    const swept = await getPool().query(
      `SELECT count(*) FROM "ClusterState" s JOIN "Cluster" c ON c."id" = s."clusterId" WHERE c."name" = 'x0'`,
    );
    if (Number(swept.rows[0].count) === 1) break;
  }
  await registerSimulatedClusters(
    sim,
    WAVE.map((n) => fleet.get(n)!),
  );
  await getPool().query(
    `INSERT INTO "ClusterState"
     SELECT (jsonb_populate_record(NULL::"ClusterState", to_jsonb(s) || jsonb_build_object('clusterId', c."id"))).*
       FROM "ClusterState" s JOIN "Cluster" x ON x."id" = s."clusterId" AND x."name" = 'x0'
       CROSS JOIN "Cluster" c WHERE c."name" <> 'x0'
     ON CONFLICT ("clusterId") DO UPDATE SET "snapshot" = excluded."snapshot", "lastSeenAt" = excluded."lastSeenAt",
       "version" = excluded."version", "readinessTarget" = excluded."readinessTarget", "readinessStatus" = excluded."readinessStatus",
       "readinessBlocker" = excluded."readinessBlocker"`,
  );
  await getPool().query(`UPDATE "Cluster" SET "lastContactStatus" = 'ok', "lastContactAt" = now()`);
}, 600_000);

afterEach(async () => {
  for (const name of [...SMALL, ...WAVE]) fleet.setFaults(name, undefined);
  await getPool().query(`UPDATE "Rollout" SET "status" = 'aborted', "finishedAt" = now() WHERE "status" <> ALL('{completed,aborted}')`);
});
afterAll(async () => {
  reconciler.stop();
  await sim.close();
});

/**
 * A 500-cluster wave whose writes answer after 200 ms, braked once `before` writes have reached the
 * simulator: the patches after the brake's answer are at most the writes it said were in flight.
 */
async function brakeMidWave(brake: (id: string) => Promise<number>) {
  for (const name of WAVE) fleet.setFaults(name, { latencyMs: 200, writesOnly: true });
  const baseline = new Map(WAVE.map((n) => [n, cvPatches(n)]));
  const id = await planned(WAVE, { maxConcurrency: 500, maxFailures: 500 });
  const runner = tickInBackground();
  try {
    const before = totalPatches(WAVE);
    await until("the wave's writes", () => totalPatches(WAVE) >= before + 20);
    const inFlight = await brake(id);
    const atAnswer = totalPatches(WAVE);
    // Every claim ends (its write answered) and every written step is followed to its end.
    await until("the end of the writes in flight", async () => {
      const r = await getPool().query(`SELECT count(*) FROM "RolloutCluster" WHERE "rolloutId" = $1 AND "claimedBy" IS NOT NULL`, [id]);
      return Number(r.rows[0].count) === 0;
    });
    await new Promise((r) => setTimeout(r, 1_000));
    const afterAnswer = totalPatches(WAVE) - atAnswer;
    expect(runner.failures).toEqual([]);
    expect(inFlight).toBeGreaterThan(0);
    expect(inFlight).toBeLessThanOrEqual(16);
    expect(afterAnswer).toBeLessThanOrEqual(inFlight);
    // The clusters this rollout patched (earlier tests' clusters are confirmed, not patched again).
    const written = WAVE.filter((n) => cvPatches(n) > baseline.get(n)!);
    return { id, runner, written };
  } catch (error) {
    await runner.stop();
    throw error;
  }
}

describe("the brake holds at the next write", () => {
  it("abort: no write is sent after the answer but those it counted in flight; each one written is followed to its end", async () => {
    const { id, runner, written } = await brakeMidWave(async (id) => (await changeRollout(id, "abort", "stop the wave", alice)).inFlight);
    await until("every written cluster followed to its end", async () => (await rows(id)).every((r) => r.state !== "running"));
    await runner.stop();
    const byName = new Map((await rows(id)).map((r) => [r.clusterName, r]));
    expect(written.filter((n) => byName.get(n)!.state !== "succeeded")).toEqual([]);
    // The clusters never written ended as skipped, never as running.
    const others = WAVE.filter((n) => !written.includes(n)).map((n) => byName.get(n)!.state);
    expect(new Set(others)).toEqual(new Set(["skipped"]));
    const event = await getPool().query(
      `SELECT "details" FROM "AuditEvent" WHERE "action" = 'rollout.abort' AND "details"->>'rollout' = (SELECT "number"::text FROM "Rollout" WHERE "id" = $1)`,
      [id],
    );
    expect(event.rows).toHaveLength(1);
  }, 300_000);

  it("skip: no write to the skipped clusters after the answer but those in flight; the ones written are followed (their outcome)", async () => {
    const { id, runner, written } = await brakeMidWave(async (id) => {
      const answer = await decideClusters(id, { action: "skip", inState: "running", comment: "not tonight" }, alice);
      return answer.inFlight;
    });
    await until("every written skipped cluster followed to its end", async () =>
      (await rows(id)).filter((r) => written.includes(r.clusterName)).every((r) => r.state === "succeeded" || r.outcome !== null),
    );
    await runner.stop();
    const r = await rows(id);
    const followed = r.filter((c) => written.includes(c.clusterName) && c.state === "skipped");
    expect(followed.length).toBeGreaterThan(0);
    expect(followed.filter((c) => c.outcome !== "succeeded")).toEqual([]);
    expect(followed[0]!.reason).toMatch(/^skipped by alice: not tonight; after the skip the cluster showed: succeeded$/);
    expect(r.filter((c) => c.state === "running")).toEqual([]);
  }, 300_000);

  it("pause: no write after the answer but those in flight; the written ones are followed to their end while paused", async () => {
    const { id, runner, written } = await brakeMidWave(async (id) => (await changeRollout(id, "pause", "hold on", alice)).inFlight);
    await until("every written cluster followed to its end", async () =>
      (await rows(id)).filter((r) => written.includes(r.clusterName)).every((r) => r.state !== "running"),
    );
    const patches = totalPatches(WAVE);
    // Still paused a while later: nothing more is written.
    await new Promise((r) => setTimeout(r, 1_500));
    await runner.stop();
    expect(totalPatches(WAVE)).toBe(patches);
    const r = await rows(id);
    expect(r.filter((c) => written.includes(c.clusterName) && c.state !== "succeeded")).toEqual([]);
    const status = await getPool().query(`SELECT "status" FROM "Rollout" WHERE "id" = $1`, [id]);
    expect(status.rows[0].status).toBe("paused");
  }, 300_000);
});

describe("what runs is what was planned, and bounded", () => {
  it("a cluster removed and another registered under its name is not written: its step fails saying so", async () => {
    const id = await planned(["x1"], { maxFailures: 1 });
    await getPool().query(`DELETE FROM "Cluster" WHERE "name" = 'x1'`);
    await registerSimulatedClusters(sim, [fleet.get("x1")!]);
    const runner = tickInBackground();
    try {
      await until("the step's end", async () => (await rows(id))[0]!.state !== "running" && (await rows(id))[0]!.state !== "pending");
    } finally {
      await runner.stop();
    }
    const [step] = await rows(id);
    expect(step).toMatchObject({ state: "failed", attempts: 0 });
    expect(step!.reason).toBe(
      "not written: the cluster planned under this name was removed, and the one registered under it since is another cluster",
    );
    expect(fleet.get("x1")!.writeRequests.size).toBe(0);
  }, 60_000);

  it("a cluster that answers every write with 503 gets a bounded number of attempts, audited as one event, and never succeeds", async () => {
    fleet.setFaults("x2", { errorEvery: 1, errorStatus: 503, writesOnly: true });
    const id = await planned(["x2"], { maxFailures: 1 });
    const runner = tickInBackground();
    try {
      await until("the step's end", async () => (await rows(id))[0]!.state === "failed");
      // Ticks go on a while after: no further attempt.
      await new Promise((r) => setTimeout(r, 1_000));
    } finally {
      await runner.stop();
    }
    const [step] = await rows(id);
    expect(step!.attempts).toBe(OPTIONS.maxAttempts);
    // Every attempt's patch reached the simulated API server and was answered 503 (none was taken).
    expect(fleet.get("x2")!.requestsByMethod.get("PATCH")).toBe(OPTIONS.maxAttempts);
    expect(cvPatches("x2")).toBe(0);
    expect(step!.reason).toMatch(/^no answer confirmed the write in 5 attempts; the last: .*\(HTTP 503\)$/);
    const events = await getPool().query(
      `SELECT "outcome", "details" FROM "AuditEvent" WHERE "action" = 'cluster.write' AND "targetId" = 'x2'`,
    );
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].outcome).toBe("failure");
    expect(events.rows[0].details.attempts).toBe(OPTIONS.maxAttempts);
  }, 60_000);
});
