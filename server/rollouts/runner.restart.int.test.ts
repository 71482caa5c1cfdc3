import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { Actor } from "../auth/actor";
import { Collector } from "../collector/collector";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { DEFAULT_RECONCILER_OPTIONS, Reconciler, scaledClock } from "../simulator/reconciler";
import { prodEastObjects } from "../simulator/scenarios/prodEast";
import { closeDb, getPool } from "../store/db";
import { migrate } from "../store/migrate";
import { makeAllDue } from "../store/sweeps";
import { testActor } from "../testing/actors";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { migrationsDir } from "../testing/postgres";
import { startPrivatePostgres, type PrivatePostgres } from "../testing/privatePostgres";
import { changeRollout, proposeRollout, rolloutView } from "./manage";
import { advanceRollouts, DEFAULT_RUNNER_OPTIONS } from "./runner";

/**
 * The Postgres server itself restarted (`pg_ctl restart -m immediate`: every backend killed at once,
 * crash recovery on start) under a running rollout, twice, while writes are on the wire: the rollout
 * completes with one ClusterVersion patch per cluster. The server is the test's own (the shared one
 * serves every other test); runner.int.test.ts cuts sessions on the shared server instead.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");

const NAMES = Array.from({ length: 15 }, (_, i) => `r${String(i).padStart(2, "0")}`);
let server: PrivatePostgres;
let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let tom: Actor;
let alice: Actor;

const cvPatches = (cluster: string) => fleet.get(cluster)!.writeRequests.get("patch ClusterVersion") ?? 0;

beforeAll(async () => {
  server = await startPrivatePostgres();
  await migrate(server.url, { dir: migrationsDir });
  process.env.DATABASE_URL = server.url;
  delete process.env.FLEETSKEW_DATABASE_MODE;
  fleet = new Fleet();
  for (const name of NAMES)
    fleet.add({ name, ocpVersion: "4.19.10", token: `${name}-token`, readOnlyToken: `${name}-reader`, objects: prodEastObjects });
  sim = await startSimulator(fleet);
  reconciler = new Reconciler(fleet, scaledClock(120), { ...DEFAULT_RECONCILER_OPTIONS, upgradeSeconds: 60 });
  reconciler.start(50);
  await registerSimulatedClusters(sim, fleet.list());
  tom = await testActor("tom", "technician");
  alice = await testActor("alice", "approver");
  for (let attempt = 0; attempt < 5; attempt++) {
    await makeAllDue();
    await new Collector(testCollectorOptions("test")).runOnce();
    const swept = await getPool().query(`SELECT count(*) FROM "ClusterState"`);
    if (Number(swept.rows[0].count) === NAMES.length) break;
  }
}, 300_000);

afterAll(async () => {
  reconciler?.stop();
  await sim?.close();
  await closeDb();
  await server?.remove();
});

it("Postgres restarted (immediate) twice mid-wave: the rollout completes with one write per cluster", async () => {
  // Slow answers keep writes in flight while the server goes down.
  for (const name of NAMES) fleet.setFaults(name, { latencyMs: 150, writesOnly: true });
  const request = RolloutRequestSchema.parse({
    kind: "upgrade",
    target: "4.19.11",
    selection: { clusters: NAMES },
    strategy: { maxConcurrency: 5, maxFailures: 0 },
  });
  const id = ((await proposeRollout(request, tom)).answer as { id: string }).id;
  await changeRollout(id, "approve", "", alice, (await rolloutView(id)).digest);

  const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
  let ticking = true;
  const runner = (async () => {
    while (ticking) {
      // A claim whose record was lost with the server runs out after 3 s, then the step is confirmed.
      // A tick that meets the outage fails; the next one goes on from what the database holds.
      await advanceRollouts(new Date(), { ...DEFAULT_RUNNER_OPTIONS, leaseMs: 3_000 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  // The test's reads retry over the outage, as a person reloading would.
  const read = async <T>(query: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await query();
      } catch (error) {
        if (attempt > 100) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const claimed = async () =>
    Number((await getPool().query(`SELECT count(*) FROM "RolloutCluster" WHERE "rolloutId" = $1 AND "attempts" > 0`, [id])).rows[0].count);
  const startedAt = async () => String((await getPool().query(`SELECT pg_postmaster_start_time()::text AS t`)).rows[0].t);
  const statusAtRestart: string[] = [];
  const restarted: boolean[] = [];
  const status = async () => (await getPool().query(`SELECT "status" FROM "Rollout" WHERE "id" = $1`, [id])).rows[0].status as string;
  try {
    const giveUp = Date.now() + 120_000;
    // In waves 0 and 1, once a write of the wave has been claimed (so is on the wire).
    for (const steps of [1, 6]) {
      while ((await read(claimed)) < steps && Date.now() < giveUp) await new Promise((r) => setTimeout(r, 10));
      statusAtRestart.push(await read(status));
      const before = await read(startedAt);
      await server.restartImmediately();
      restarted.push((await read(startedAt)) !== before);
    }
    while ((await read(status)) !== "completed" && Date.now() < giveUp) await new Promise((r) => setTimeout(r, 200));
  } finally {
    ticking = false;
    await runner;
    spy.mockRestore();
  }
  // The server really went down and came back twice, each time while the rollout was running.
  expect(restarted).toEqual([true, true]);
  expect(statusAtRestart).toEqual(["running", "running"]);
  expect(await status()).toBe("completed");
  const states = (await getPool().query(`SELECT "clusterName", "state" FROM "RolloutCluster" WHERE "rolloutId" = $1`, [id])).rows;
  expect(states.filter((r) => r.state !== "succeeded")).toEqual([]);
  expect(NAMES.map(cvPatches)).toEqual(NAMES.map(() => 1));
}, 200_000);
