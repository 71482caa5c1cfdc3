import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FLEET_WIDE } from "../domain/grants";
import { createTestDatabase, migrateBefore, migrationsDir, type TestDatabase } from "../testing/database";
import { seedFleetRows } from "../testing/fleetRows";
import { closeDb, getDb, getPool } from "./db";
import { migrate } from "./migrate";
import { candidateFacts } from "./rolloutCandidates";

/**
 * What a rollout plan reads of each snapshot, cut out when the snapshot is written (migration
 * 20261129090000_plan_parts): filled for the snapshots already stored when the migration runs, kept
 * by a trigger that runs when a snapshot is written and not when a steady sweep moves lastSeenAt,
 * and read back by the plan's candidates as the snapshot says.
 */
const PLAN_PARTS = "20261129090000_plan_parts";
let db: TestDatabase;

/** A 4.19 cluster's snapshot as a sweep stores it; `since` is when its conditions last changed. */
const snapshot = (current: string, since: string) => ({
  version: {
    current,
    desired: current,
    updating: false,
    history: [{ version: current, state: "Completed" }],
    conditions: [
      { type: "Available", status: "True", reason: null, message: `Done applying ${current}`, since },
      { type: "Upgradeable", status: "False", reason: "AdminAckRequired", message: "Kubernetes 1.33 removes APIs", since },
    ],
    availableUpdates: ["4.19.11", 4, "4.19.12"],
    conditionalUpdates: [
      {
        version: "4.19.13",
        recommended: "False",
        risks: [{ name: "AWSOldBootImages", message: "a long message", url: "https://x" }, { message: "no name" }],
      },
      { recommended: "True", risks: [] },
    ],
  },
  machineConfigOperator: [{ type: "Upgradeable", status: "True", reason: null, message: null, since }],
  adminGates: { "ack-4.19-kube-1.33-api-removals-in-4.20": "Kubernetes 1.33 removes APIs" },
  adminAcks: {},
  problems: [{ part: "ClusterVersion", kind: "error", message: "partly read" }],
  enforcement: { served: true },
  pad: "x".repeat(2_000),
});

const stateOf = async (name: string) =>
  (
    await getPool().query<{ planParts: Record<string, unknown> | null; planGatesKey: string | null }>(
      `SELECT s."planParts", s."planGatesKey" FROM "ClusterState" s JOIN "Cluster" c ON c."id" = s."clusterId" WHERE c."name" = $1`,
      [name],
    )
  ).rows[0]!;

const setSnapshot = (name: string, value: unknown) =>
  getPool().query(`UPDATE "ClusterState" s SET "snapshot" = $2 FROM "Cluster" c WHERE c."id" = s."clusterId" AND c."name" = $1`, [
    name,
    JSON.stringify(value),
  ]);

beforeAll(async () => {
  db = await createTestDatabase();
  await migrateBefore(db.url, PLAN_PARTS);
  process.env.DATABASE_URL = db.url;
  delete process.env.FLEETSKEW_DATABASE_MODE;
  await seedFleetRows([
    { name: "kept-a", version: "4.19.10" },
    { name: "kept-b", version: "4.19.10" },
    { name: "garbage", version: null },
  ]);
  await setSnapshot("kept-a", snapshot("4.19.10", "2026-11-01T00:00:00Z"));
  await setSnapshot("kept-b", snapshot("4.19.10", "2026-11-20T08:30:00Z"));
  await setSnapshot("garbage", { version: "not an object", machineConfigOperator: 7 });
  await closeDb();
  await migrate(db.url, { dir: migrationsDir });
});

afterAll(async () => {
  await closeDb();
  await db?.drop();
});

describe("a plan's parts of each snapshot", () => {
  it("are cut out of the snapshots already stored when the migration runs", async () => {
    const { planParts, planGatesKey } = await stateOf("kept-a");
    expect(planParts).toMatchObject({
      availableUpdates: ["4.19.11", 4, "4.19.12"],
      conditionalUpdates: [
        { version: "4.19.13", risks: [{ name: "AWSOldBootImages" }, { name: null }] },
        { version: null, risks: [] },
      ],
      acknowledgementServed: true,
    });
    const gates = planParts!.gates as Record<string, Record<string, unknown>>;
    // No history, no update lists, no condition times; the rest as stored.
    expect(Object.keys(gates.version!).sort()).toEqual(["conditions", "current", "desired", "updating"]);
    expect(gates.version!.conditions).toEqual([
      { type: "Available", status: "True", reason: null, message: "Done applying 4.19.10" },
      { type: "Upgradeable", status: "False", reason: "AdminAckRequired", message: "Kubernetes 1.33 removes APIs" },
    ]);
    expect(gates.machineConfigOperator).toEqual([{ type: "Upgradeable", status: "True", reason: null, message: null }]);
    expect(JSON.stringify(planParts)).not.toContain("pad");
    // Two clusters that differ only in when their conditions changed share their gates' key.
    expect(planGatesKey).toMatch(/^[0-9a-f]{32}$/);
    expect((await stateOf("kept-b")).planGatesKey).toBe(planGatesKey);
    // Whatever a snapshot holds, the migration went through.
    expect((await stateOf("garbage")).planParts).toMatchObject({
      availableUpdates: [],
      conditionalUpdates: [],
      gates: { version: "not an object" },
    });
  });

  it("follow a new snapshot, and are not cut again by a sweep that moved only lastSeenAt", async () => {
    // Marked by hand: only running the trigger again would undo it.
    await getPool().query(
      `UPDATE "ClusterState" s SET "planParts" = '{"marked": true}' FROM "Cluster" c WHERE c."id" = s."clusterId" AND c."name" = 'kept-b'`,
    );
    const id = (await getDb().cluster.findUniqueOrThrow({ where: { name: "kept-b" } })).id;
    await getDb().clusterState.update({ where: { clusterId: id }, data: { lastSeenAt: new Date() } });
    expect((await stateOf("kept-b")).planParts).toEqual({ marked: true });

    await setSnapshot("kept-b", snapshot("4.19.11", "2026-11-29T00:00:00Z"));
    const after = await stateOf("kept-b");
    expect((after.planParts!.gates as { version: { current: string } }).version.current).toBe("4.19.11");
    expect(after.planGatesKey).not.toBe((await stateOf("kept-a")).planGatesKey);
  });

  it("are what a plan's candidates read, each cluster with its own gates", async () => {
    const facts = await candidateFacts({ filter: { reach: FLEET_WIDE } }, new Date(0));
    const byName = new Map(facts.map((f) => [f.name, f]));
    expect(byName.get("kept-a")).toMatchObject({
      availableUpdates: ["4.19.11", "4.19.12"],
      conditionalUpdates: [{ version: "4.19.13", risks: [{ name: "AWSOldBootImages" }] }],
      acknowledgementServed: true,
      gates: {
        version: { current: "4.19.10", desired: "4.19.10", updating: false },
        machineConfigOperator: [{ type: "Upgradeable", status: "True", reason: null, message: null, since: null }],
        adminGates: { "ack-4.19-kube-1.33-api-removals-in-4.20": "Kubernetes 1.33 removes APIs" },
        problems: [{ part: "ClusterVersion", kind: "error", message: "partly read" }],
      },
    });
    expect(byName.get("kept-b")!.gates.version?.current).toBe("4.19.11");
    expect(byName.get("garbage")).toMatchObject({ availableUpdates: [], acknowledgementServed: false, gates: { version: null } });
  });
});
