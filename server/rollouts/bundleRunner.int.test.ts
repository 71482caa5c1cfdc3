import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../auth/actor";
import { uploadBundle, vetBundle } from "../bundles/bundles";
import { bytesOf, manifest } from "../bundles/testing";
import { Collector } from "../collector/collector";
import { manifestDigest } from "../domain/bundleManifest";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { DEFAULT_RECONCILER_OPTIONS, Reconciler } from "../simulator/reconciler";
import { prodEastObjects } from "../simulator/scenarios/prodEast";
import { setPoolDegraded } from "../simulator/testing";
import { getPool } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { testActor } from "../testing/actors";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { changeRollout, proposeRollout, rolloutView } from "./manage";
import { followApplications } from "../bundles/follower";
import { findRollout } from "../store/rolloutRecords";
import { decideClusters } from "./decisions";
import { advanceRollout, advanceRollouts } from "./runner";

/**
 * Bundle rollouts run by their runner against simulated clusters over real HTTP, on real Postgres:
 * each cluster's step is its bundle application (PinnedImageSets per pool, every node's pre-load on
 * its MachineConfigNode), then the upgrade and the unpin. The simulated MCO and CVO run on a clock
 * each tick moves on, and the simulator counts every write it gets.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

const NAMES = Array.from({ length: 9 }, (_, i) => `site-${i}`);
const POOLS = 3; // master, worker, infra: one PinnedImageSet each
const WORKER = "ip-10-0-77-201.ec2.internal";
const clock = { t: Date.parse("2026-11-26T08:00:00Z"), now: () => new Date(clock.t) };
let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let tom: Actor;
let alice: Actor;
let digest: string;

const sent = (cluster: string) =>
  ["POST", "PUT", "PATCH", "DELETE"].reduce((n, m) => n + (fleet.get(cluster)!.requestsByMethod.get(m) ?? 0), 0);
const writes = (cluster: string, what: string) => fleet.get(cluster)!.writeRequests.get(what) ?? 0;
const states = async (id: string) =>
  Object.fromEntries(
    (await getPool().query(`SELECT "clusterName", "state", "reason" FROM "RolloutCluster" WHERE "rolloutId" = $1`, [id])).rows.map((r) => [
      r.clusterName,
      { state: r.state as string, reason: r.reason as string | null },
    ]),
  );
const status = async (id: string) =>
  (await getPool().query(`SELECT "status", "statusReason" FROM "Rollout" WHERE "id" = $1`, [id])).rows[0];

async function sweep() {
  for (let attempt = 0; attempt < 5; attempt++) {
    await makeAllDue();
    await new Collector(testCollectorOptions("test")).runOnce();
    const swept = await getPool().query(
      `SELECT count(*) FROM "Cluster" c JOIN "ClusterState" s ON s."clusterId" = c."id" WHERE c."lastContactStatus" = 'ok'`,
    );
    if (Number(swept.rows[0].count) === NAMES.length) return;
  }
}

function request(clusters: string[], strategy: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return RolloutRequestSchema.parse({ kind: "bundle", bundle: `sha256:${digest}`, selection: { clusters }, strategy, ...extra });
}

async function planned(clusters: string[], strategy: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const { status: code, answer } = await proposeRollout(request(clusters, strategy, extra), tom);
  expect(code).toBe(201);
  const id = (answer as { id: string }).id;
  await changeRollout(id, "approve", "", alice, (await rolloutView(id)).digest);
  return id;
}

/** One runner tick, then ten simulated minutes of the MCO and CVO. */
async function tick() {
  await advanceRollouts();
  clock.t += 10 * 60_000;
  reconciler.reconcileActive();
}

async function runUntil(done: () => Promise<boolean>, ticks = 60) {
  for (let i = 0; i < ticks && !(await done()); i++) await tick();
  if (!(await done())) throw new Error("the rollout did not get there in time");
}

/** Shrinks a node's allocatable ephemeral storage, as a node whose disk was resized or filled reports it. */
function setNodeDisk(cluster: string, node: string, quantity: string) {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "v1", kind: "Node" })!;
  const current = c.store.get(info, undefined, node) as { status: { allocatable: Record<string, string> } };
  const status = { ...current.status, allocatable: { ...current.status.allocatable, "ephemeral-storage": quantity } };
  c.store.replace(info, undefined, node, { ...current, status } as never, "status");
}

beforeAll(async () => {
  fleet = new Fleet();
  for (const name of NAMES)
    fleet.add({ name, ocpVersion: "4.19.10", token: `${name}-token`, readOnlyToken: `${name}-reader`, objects: prodEastObjects });
  sim = await startSimulator(fleet);
  reconciler = new Reconciler(fleet, clock, { ...DEFAULT_RECONCILER_OPTIONS, pullSecondsPerImage: 60, upgradeSeconds: 30 * 60 });
  await registerSimulatedClusters(sim, fleet.list());
  tom = await testActor("tom", "technician");
  alice = await testActor("alice", "approver");
  const m = manifest("4.19.11");
  const bytes = bytesOf(m);
  digest = manifestDigest(bytes);
  await vetBundle({ digest, note: "release 4.19.11 mirrored on 2026-11-20" }, alice);
  await uploadBundle(bytes, tom);
  await sweep();
}, 300_000);
afterEach(async () => {
  await getPool().query(`UPDATE "Rollout" SET "status" = 'aborted', "finishedAt" = now() WHERE "status" <> ALL('{completed,aborted}')`);
});
afterAll(() => sim.close());

describe("running a bundle rollout", () => {
  it("leaves out a cluster whose stored state fails a precheck, saying which and what to do", async () => {
    setPoolDegraded(fleet, "site-5", "worker", true);
    try {
      await sweep();
      const { status: code, answer } = await proposeRollout(request(["site-4", "site-5"], {}, { dryRun: true }), tom);
      expect(code).toBe(200);
      const plan = answer as { waves: { clusters: string[] }[]; excluded: { cluster: string; reason: string }[] };
      expect(plan.waves.flatMap((w) => w.clusters)).toEqual(["site-4"]);
      expect(plan.excluded).toEqual([
        { cluster: "site-5", reason: expect.stringMatching(/^bundle precheck: Pool worker is degraded\..*fix the degraded pool/) },
      ]);
    } finally {
      setPoolDegraded(fleet, "site-5", "worker", false);
      await sweep();
    }
  }, 120_000);

  it("pre-loads every node, starts each upgrade and unpins after it, writing each step once even after a stop", async () => {
    const clusters = NAMES.slice(0, 4);
    const id = await planned(clusters, { canaries: 1, maxConcurrency: 2 }, { startUpgrade: true, unpinAfter: true });
    await tick();
    expect(writes("site-0", "create PinnedImageSet")).toBe(POOLS);
    // A runner that stopped after the sets were created, before recording the write, and an application left half-way:
    // the next ticks find both on the cluster and write nothing again.
    await getPool().query(`UPDATE "RolloutCluster" SET "writtenAt" = NULL WHERE "rolloutId" = $1 AND "clusterName" = 'site-0'`, [id]);
    await getPool().query(
      `UPDATE "BundleApplication" SET "state" = 'applying' WHERE "clusterId" = (SELECT "id" FROM "Cluster" WHERE "name" = 'site-0')`,
    );
    await runUntil(async () => (await status(id)).status === "completed");
    const s = await states(id);
    expect(clusters.map((n) => s[n]!.state)).toEqual(clusters.map(() => "succeeded"));
    expect(clusters.map((n) => writes(n, "create PinnedImageSet"))).toEqual(clusters.map(() => POOLS));
    expect(clusters.map((n) => writes(n, "patch ClusterVersion"))).toEqual(clusters.map(() => 1));
    expect(clusters.map((n) => writes(n, "delete PinnedImageSet"))).toEqual(clusters.map(() => POOLS));
    expect(clusters.map((n) => fleet.get(n)!.spec.ocpVersion)).toEqual(clusters.map(() => "4.19.11"));
    const applications = await getPool().query(
      `SELECT a."state", a."createdBy", a."upgradeStartedBy", a."upgradedAt" FROM "BundleApplication" a JOIN "Cluster" c ON c."id" = a."clusterId"
        WHERE c."name" = ANY($1)`,
      [clusters],
    );
    expect(applications.rows.map((r) => [r.state, r.createdBy, r.upgradeStartedBy, r.upgradedAt !== null])).toEqual(
      clusters.map(() => ["unpinned", expect.stringMatching(/^rollout \d+$/), expect.stringMatching(/^rollout \d+$/), true]),
    );
  }, 240_000);

  it("fails a cluster whose pre-load fails on one node, in the MCO's words, and pauses past maxFailures", async () => {
    const id = await planned(["site-4", "site-5"], { maxConcurrency: 2, maxFailures: 0 });
    await advanceRollouts();
    expect([writes("site-4", "create PinnedImageSet"), writes("site-5", "create PinnedImageSet")]).toEqual([POOLS, POOLS]);
    // The disk of one worker of site-4 shrank after its prechecks passed: the MCO refuses to pull there.
    setNodeDisk("site-4", WORKER, "20Gi");
    clock.t += 10 * 60_000;
    reconciler.reconcileActive();
    await runUntil(async () => (await status(id)).status === "paused");
    const s = await states(id);
    expect(s["site-4"]!.state).toBe("failed");
    expect(s["site-4"]!.reason).toMatch(
      new RegExp(
        `^pre-load failed on node ${WORKER} of pool worker: not enough disk; the MCO reports "storage available is less than minimum required" \\(MachineConfigNode ${WORKER}, PinnedImageSetsDegraded=True\\)\\. .*grow the node's disk`,
      ),
    );
    expect((await status(id)).statusReason).toBe("1 cluster failed, more than the 0 the plan tolerates");
    expect(s["site-5"]!.state).not.toBe("failed");
  }, 120_000);

  /** The simulated MCO pulls for a while, without the runner: the pre-load finishes, its follow-up is the upgrade's start. */
  async function preloadWithoutRunner() {
    for (let i = 0; i < 8; i++) {
      clock.t += 10 * 60_000;
      reconciler.reconcileActive();
    }
  }

  it("skip: a cluster skipped during its pre-load gets no PinnedImageSet and no upgrade after the answer", async () => {
    const id = await planned(["site-6", "site-7"], { maxConcurrency: 2 }, { startUpgrade: true });
    await advanceRollouts();
    expect([writes("site-6", "create PinnedImageSet"), writes("site-7", "create PinnedImageSet")]).toEqual([POOLS, POOLS]);
    // A tick that read the rollout before the skip, still under way after its answer.
    const stale = (await findRollout(id))!;
    const answer = await decideClusters(id, { action: "skip", clusters: ["site-6"], comment: "not this one" }, alice);
    expect(answer.changed).toEqual(["site-6"]);
    const after = sent("site-6");
    await preloadWithoutRunner();
    await advanceRollout(stale);
    await followApplications(clock.t);
    await runUntil(async () => (await states(id))["site-7"]!.state === "succeeded");
    await followApplications(clock.t);
    expect(sent("site-6")).toBe(after);
    expect(writes("site-6", "create PinnedImageSet")).toBe(POOLS);
    expect(writes("site-6", "patch ClusterVersion")).toBe(0);
    expect(writes("site-7", "patch ClusterVersion")).toBe(1);
    expect((await states(id))["site-6"]!.state).toBe("skipped");
  }, 240_000);

  it("abort: no write after the answer beyond those it counted in flight, even from a tick already under way", async () => {
    const id = await planned(["site-8"], {}, { startUpgrade: true });
    await advanceRollouts();
    expect(writes("site-8", "create PinnedImageSet")).toBe(POOLS);
    await preloadWithoutRunner();
    const stale = (await findRollout(id))!;
    const answer = await changeRollout(id, "abort", "stop the bundle", alice);
    const after = sent("site-8");
    await advanceRollout(stale);
    await followApplications(clock.t);
    for (let i = 0; i < 3; i++) await tick();
    await followApplications(clock.t);
    expect(sent("site-8") - after).toBeLessThanOrEqual(answer.inFlight);
    expect(writes("site-8", "patch ClusterVersion")).toBe(0);
  }, 240_000);
});
