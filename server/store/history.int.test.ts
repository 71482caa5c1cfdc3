import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterTimeline } from "../fleet/fleet";
import { FLEET_WIDE } from "../domain/grants";
import { closeDb, getDb } from "./db";
import { appendClusterFacts, factsInWindow, historyPartitions, keepHistory } from "./history";
import { migrate } from "./migrate";
import { createTestDatabase, migrateBefore, migrationsDir, type TestDatabase } from "../testing/database";

/**
 * History partitioned by month: the migration that partitions a populated table, the upkeep that
 * makes months ahead and folds the months past the retention into one row a day, and timelines that
 * read both as one.
 */
const PARTITIONING = "20261128220000_partitioned_history";
let db: TestDatabase;
let clusterId: string;
let before: { id: bigint; at: Date; fact: string; key: string; value: unknown }[];

const day = (d: string, time = "12:00:00") => new Date(`${d}T${time}Z`);
const monthStart = (offset: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
};

async function sql<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  // The schema as it was before partitioning, with history in it.
  await migrateBefore(db.url, PARTITIONING);
  const [cluster] = await sql<{ id: string }>(
    `INSERT INTO "Cluster" ("id", "name", "displayName", "apiUrl", "encryptedCredentials", "updatedAt")
     VALUES (gen_random_uuid(), 'kept', 'kept', 'https://example.invalid', '\\x00', now()) RETURNING "id"`,
  );
  clusterId = cluster!.id;
  const rows: [string, string, string, unknown][] = [
    // January 2024: a version, and a pool that rolled node by node in one day.
    ["2024-01-03T08:00:00", "version", "", { current: "4.16.1" }],
    ["2024-01-10T09:00:00", "pool", "worker", { ready: 1 }],
    ["2024-01-10T10:00:00", "pool", "worker", { ready: 2 }],
    ["2024-01-10T11:00:00", "pool", "worker", { ready: 3 }],
    // February 2024: an update.
    ["2024-02-14T12:00:00", "version", "", { current: "4.17.2" }],
    // Recent: last month and this month.
    [monthStart(-1).toISOString().slice(0, 10) + "T06:00:00", "version", "", { current: "4.18.3" }],
    [new Date().toISOString().slice(0, 10) + "T00:00:00", "pool", "worker", { ready: 4 }],
  ];
  for (const [at, fact, key, value] of rows)
    await sql(`INSERT INTO "ClusterFact" ("clusterId", "at", "fact", "key", "value") VALUES ($1, $2, $3, $4, $5)`, [
      clusterId,
      at,
      fact,
      key,
      JSON.stringify(value),
    ]);
  before = await sql(`SELECT "id", "at", "fact", "key", "value" FROM "ClusterFact" ORDER BY "id"`);
  // Now the partitioning migration and everything after it.
  await migrate(db.url, { dir: migrationsDir });
  process.env.DATABASE_URL = db.url;
}, 60_000);

afterAll(async () => {
  await closeDb();
  await db?.drop();
});

describe("partitioning a populated history", () => {
  it("keeps every row with its id, puts each month in a partition of its own, and makes this month and the next three", async () => {
    const after = await sql<{ id: string; at: Date; fact: string; key: string; value: unknown }>(
      `SELECT "id", "at", "fact", "key", "value" FROM "ClusterFact" ORDER BY "id"`,
    );
    expect(after).toEqual(before);
    const parts = await historyPartitions();
    const names = parts.map((p) => p.name);
    expect(names).toContain("ClusterFact_2024_01");
    expect(names).toContain("ClusterFact_2024_02");
    for (const offset of [-1, 0, 1, 2, 3]) {
      const m = monthStart(offset);
      expect(names).toContain(`ClusterFact_${m.getUTCFullYear()}_${String(m.getUTCMonth() + 1).padStart(2, "0")}`);
    }
    expect(names.at(-1)).toBe("ClusterFact_default");
    const kinds = await sql<{ partitioned: boolean }>(`SELECT relkind = 'p' AS partitioned FROM pg_class WHERE relname = 'ClusterFact'`);
    expect(kinds).toEqual([{ partitioned: true }]);
    // New rows get ids after the old ones.
    await appendClusterFacts([{ clusterId, at: new Date(), fact: "pool", key: "master", value: { ready: 3 } }]);
    const newest = await getDb().clusterFact.findFirst({ orderBy: { id: "desc" } });
    expect(newest!.id).toBeGreaterThan(BigInt(before.at(-1)!.id));
  });

  it("puts a row for a month without a partition in the default one, and moves it into the month's partition when it is made", async () => {
    const far = monthStart(7);
    await appendClusterFacts([{ clusterId, at: new Date(far.getTime() + 3_600_000), fact: "clock", key: "", value: { wrong: true } }]);
    expect(await sql(`SELECT 1 FROM "ClusterFact_default"`)).toHaveLength(1);
    const kept = await keepHistory(day("2000-01-01"), day("2000-01-01"), 8);
    // Months four to eight from now.
    expect(kept.created).toBe(5);
    expect(await sql(`SELECT 1 FROM "ClusterFact_default"`)).toHaveLength(0);
    const name = `ClusterFact_${far.getUTCFullYear()}_${String(far.getUTCMonth() + 1).padStart(2, "0")}`;
    expect(await sql(`SELECT "fact" FROM "${name}"`)).toEqual([{ fact: "clock" }]);
    await getDb().clusterFact.deleteMany({ where: { fact: "clock" } });
    // Again: nothing to make.
    expect((await keepHistory(day("2000-01-01"), day("2000-01-01"), 8)).created).toBe(0);
  });
});

describe("retention", () => {
  it("folds the months past the retention into the last change of each day and drops them; the timeline still draws them", async () => {
    const window = { from: day("2023-12-01"), to: new Date() };
    const timelineBefore = await factsInWindow(clusterId, ["version", "pool"], window.from, window.to);
    const kept = await keepHistory(day("2024-03-05"), day("2020-01-01"));
    expect(kept).toMatchObject({ dropped: 2, pruned: 0 });
    // January: the version and the pool's last state that day; February: the update.
    expect(kept.folded).toBe(3);
    const names = (await historyPartitions()).map((p) => p.name);
    expect(names).not.toContain("ClusterFact_2024_01");
    expect(names).not.toContain("ClusterFact_2024_02");
    const daily = await getDb().clusterFactDaily.findMany({ where: { clusterId }, orderBy: [{ day: "asc" }, { fact: "asc" }] });
    expect(daily.map((d) => [d.day.toISOString().slice(0, 10), d.fact, d.value])).toEqual([
      ["2024-01-03", "version", { current: "4.16.1" }],
      ["2024-01-10", "pool", { ready: 3 }],
      ["2024-02-14", "version", { current: "4.17.2" }],
    ]);
    // The same timeline, less the pool's steps within that one day.
    const timelineAfter = await factsInWindow(clusterId, ["version", "pool"], window.from, window.to);
    const withoutSteps = timelineBefore.filter(
      (r) => !(r.fact === "pool" && r.at.startsWith("2024-01-10") && !r.at.startsWith("2024-01-10T11")),
    );
    expect(timelineAfter).toEqual(withoutSteps);
    // A window opening after the folded months still opens with the state they left.
    const opened = await factsInWindow(clusterId, ["version"], day("2024-06-01"), day("2024-07-01"));
    expect(opened).toEqual([{ at: "2024-02-14T12:00:00.000Z", fact: "version", key: "", value: { current: "4.17.2" }, inferred: false }]);
    // The cluster's timeline as the console draws it.
    const drawn = await clusterTimeline("kept", FLEET_WIDE, { from: day("2023-12-01"), to: new Date() });
    expect(drawn!.version.map((p) => p.version)).toEqual(["4.16.1", "4.17.2", "4.18.3"]);
  });

  it("deletes daily rows past their own retention but the newest of each fact, and keeps nothing twice", async () => {
    const kept = await keepHistory(day("2024-03-05"), day("2024-03-01"));
    // The January version gives way to February's; the pool's one row stays (the state at the cutoff).
    expect(kept).toMatchObject({ dropped: 0, folded: 0, pruned: 1 });
    const daily = await getDb().clusterFactDaily.findMany({ where: { clusterId }, orderBy: { day: "asc" } });
    expect(daily.map((d) => [d.fact, d.value])).toEqual([
      ["pool", { ready: 3 }],
      ["version", { current: "4.17.2" }],
    ]);
    expect(await keepHistory(day("2024-03-05"), day("2024-03-01"))).toMatchObject({ dropped: 0, folded: 0, pruned: 0 });
  });

  it("runs under a role that may only read and write rows", async () => {
    const role = `runtime_${db.name}`.slice(0, 60);
    await sql(`CREATE ROLE "${role}" LOGIN`);
    await sql(`GRANT USAGE ON SCHEMA public TO "${role}"`);
    await sql(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "${role}"`);
    const url = new URL(db.url);
    url.username = role;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      await expect(
        client.query(`CREATE TABLE "ClusterFact_1999_01" PARTITION OF "ClusterFact" FOR VALUES FROM ('1999-01-01') TO ('1999-02-01')`),
      ).rejects.toThrow(/must be owner|permission denied/);
      const { rows } = await client.query(`SELECT * FROM fleetskew_keep_history($1, $2, 12)`, [day("2000-01-01"), day("2000-01-01")]);
      expect(rows[0].created).toBeGreaterThan(0);
    } finally {
      await client.end();
      await sql(`DROP OWNED BY "${role}"`);
      await sql(`DROP ROLE "${role}"`);
    }
  });
});
