import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../auth/actor";
import { Collector } from "../collector/collector";
import { MAX_STORED_TEXT_BYTES } from "../domain/clip";
import { RolloutRequestSchema } from "../domain/rollouts/request";
import { MAX_OBJECT_BYTES } from "../kube/limits";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { DEFAULT_RECONCILER_OPTIONS, Reconciler, scaledClock } from "../simulator/reconciler";
import { prodEastObjects } from "../simulator/scenarios/prodEast";
import { getPool } from "../store/db";
import { makeAllDue } from "../store/sweeps";
import { testActor } from "../testing/actors";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { changeRollout, proposeRollout, rolloutView } from "./manage";
import { advanceRollouts } from "./runner";

/**
 * A hostile cluster in an upgrade rollout, played by the simulator over real HTTP: a ClusterVersion
 * whose Progressing message is 30 MB, one whose message is 1 MB, and MachineConfigPool lists that
 * answer 500. The console refuses the 30 MB answer as it arrives, clips the 1 MB message before it
 * is stored, and never calls an upgrade done without the pools.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

const NAMES = ["h0", "h1"];
let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let tom: Actor;
let alice: Actor;

type Row = { state: string; reason: string | null; writtenAt: Date | null; bytes: number | null };
const row = async (id: string, cluster: string): Promise<Row> =>
  (
    await getPool().query(
      `SELECT "state", "reason", "writtenAt", octet_length("reason") AS bytes FROM "RolloutCluster" WHERE "rolloutId" = $1 AND "clusterName" = $2`,
      [id, cluster],
    )
  ).rows[0];
const cvHistoryHead = (cluster: string) => {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  const cv = c.store.get(info, undefined, "version") as { status?: { history?: { state: string; version: string }[] } };
  return cv.status?.history?.[0];
};

async function planned(cluster: string): Promise<string> {
  const request = RolloutRequestSchema.parse({
    kind: "upgrade",
    target: "4.19.11",
    selection: { clusters: [cluster] },
    strategy: { maxConcurrency: 1, maxFailures: 0 },
  });
  const { answer } = await proposeRollout(request, tom);
  const id = (answer as { id: string }).id;
  await changeRollout(id, "approve", "", alice, (await rolloutView(id)).digest);
  return id;
}

/** Ticks the runner until `done` holds, as the background job would; every row stays within the stored bound meanwhile. */
async function tickUntil(id: string, done: () => Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error("the rollout did not get there in time");
    await advanceRollouts();
    const { rows } = await getPool().query(`SELECT max(octet_length("reason")) AS most FROM "RolloutCluster" WHERE "rolloutId" = $1`, [id]);
    expect(Number(rows[0].most ?? 0)).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
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
  for (let attempt = 0; attempt < 5; attempt++) {
    await makeAllDue();
    await new Collector(testCollectorOptions("test")).runOnce();
    const swept = await getPool().query(`SELECT count(*) FROM "Cluster" WHERE "lastContactStatus" = 'ok'`);
    if (Number(swept.rows[0].count) === NAMES.length) break;
  }
}, 300_000);
afterEach(async () => {
  for (const name of NAMES) {
    fleet.setFaults(name, undefined);
    fleet.setUpgradeTrouble(name, undefined);
  }
  await getPool().query(`UPDATE "Rollout" SET "status" = 'aborted', "finishedAt" = now() WHERE "status" <> ALL('{completed,aborted}')`);
});
afterAll(() => {
  reconciler.stop();
  return sim.close();
});

describe("a hostile cluster in an upgrade rollout", () => {
  it("a 30 MB Progressing message is refused as it arrives; with the pools unlisted the upgrade is never called succeeded", async () => {
    const id = await planned("h0");
    // Written with the cluster still well-behaved; from here it turns hostile.
    await tickUntil(id, async () => (await row(id, "h0")).writtenAt !== null);
    fleet.setFaults("h0", { progressingMessageBytes: 30_000_000, failingLists: ["machineconfigpools"] });

    await tickUntil(id, async () => cvHistoryHead("h0")?.state === "Completed" && /larger than/.test((await row(id, "h0")).reason ?? ""));
    const refused = await row(id, "h0");
    expect(refused.state).toBe("running");
    expect(refused.reason).toMatch(
      new RegExp(
        `^cannot read ClusterVersion now: the answer to GET \\S+/clusterversions/version is larger than ${MAX_OBJECT_BYTES / 1024 / 1024} MiB`,
      ),
    );
    expect(refused.bytes).toBeLessThan(1024);

    // ClusterVersion readable again (the update Completed), the pools still answering 500: unknown, not done.
    fleet.setFaults("h0", { failingLists: ["machineconfigpools"] });
    await tickUntil(id, async () => /^cannot read MachineConfigPools now/.test((await row(id, "h0")).reason ?? ""));
    for (let i = 0; i < 3; i++) await advanceRollouts();
    const unknown = await row(id, "h0");
    expect(cvHistoryHead("h0")).toMatchObject({ state: "Completed", version: "4.19.11" });
    expect(unknown.state).toBe("running");
    expect(unknown.reason).toMatch(/^cannot read MachineConfigPools now: .*\(HTTP 500\)$/);

    // The cluster well-behaved again: the same step succeeds, so nothing else held it.
    fleet.setFaults("h0", undefined);
    await tickUntil(id, async () => (await row(id, "h0")).state === "succeeded");
    expect((await row(id, "h0")).reason).toBeNull();
  }, 180_000);

  it("a 1 MB Progressing message is stored clipped to 32 KiB, and so is every audit summary", async () => {
    const since = (await getPool().query(`SELECT coalesce(max("id"), 0) AS id FROM "AuditEvent"`)).rows[0].id;
    fleet.setUpgradeTrouble("h1", "hangs");
    const id = await planned("h1");
    await tickUntil(id, async () => (await row(id, "h1")).writtenAt !== null);
    fleet.setFaults("h1", { progressingMessageBytes: 1_000_000 });
    await tickUntil(id, async () => ((await row(id, "h1")).bytes ?? 0) > MAX_STORED_TEXT_BYTES / 2);
    const clipped = await row(id, "h1");
    expect(clipped.state).toBe("running");
    expect(clipped.reason).toMatch(/^updating: .*xxxx…$/s);
    expect(clipped.bytes).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
    expect(clipped.bytes).toBeGreaterThan(MAX_STORED_TEXT_BYTES - 8);
    const { rows } = await getPool().query(`SELECT max(octet_length("summary")) AS most FROM "AuditEvent" WHERE "id" > $1`, [since]);
    expect(Number(rows[0].most)).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
  }, 180_000);
});
