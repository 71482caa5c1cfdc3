import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, migrateBefore, migrationsDir, type TestDatabase } from "../testing/database";
import { seedFleetRows } from "../testing/fleetRows";
import { insertCluster } from "./clusters";
import { closeDb, getDb, getPool } from "./db";
import { fleetFacets, fleetWindow } from "./fleetWindow";
import { migrate } from "./migrate";
import { FLEET_WIDE } from "../domain/grants";

/**
 * The fleet index (migration 20261129080000_fleet_index): filled from an existing fleet when the
 * migration runs, then kept by triggers from every write to "Cluster" and "ClusterState". Each check
 * compares it with what the two tables say, computed here in TypeScript rather than by the SQL that
 * keeps it.
 */
const FLEET_INDEX = "20261129080000_fleet_index";
let db: TestDatabase;

const SKEW_ORDER = ["blocked", "at-risk", "opted-out", "unknown", "ok"];
const READINESS_ORDER = ["fail", "warn", "unknown", "pass"];
const rank = (order: string[], status: string) => (order.includes(status) ? order.indexOf(status) + 1 : null);
function versionKey(version: string | null): number[] {
  const m = version ? /^(\d{1,6})\.(\d{1,6})(?:\.(\d{1,6}))?/.exec(version) : null;
  return m
    ? m
        .slice(1)
        .filter((p) => p !== undefined)
        .map(Number)
    : [999999];
}

type IndexRow = Record<string, unknown>;

/** What the index should hold for every cluster, from the two tables as Prisma reads them. */
async function expectedIndex(): Promise<IndexRow[]> {
  const clusters = await getDb().cluster.findMany({ include: { state: true }, orderBy: { name: "asc" } });
  return clusters.map((c) => {
    const s = c.state;
    const skew = s?.skewStatus ?? "unknown";
    const readiness = s?.readinessStatus ?? "unknown";
    return {
      name: c.name,
      displayName: c.displayName,
      labels: c.labels,
      platform: c.platform ?? "unknown",
      offline: c.offline || (c.hubState ?? "available") !== "available",
      contactFailed: !["ok", "unknown"].includes(c.lastContactStatus),
      version: s?.version ?? null,
      minor: s?.version ? (/^\d+\.\d+/.exec(s.version)?.[0] ?? "unknown") : "unknown",
      versionKey: versionKey(s?.version ?? null),
      oldestKey: versionKey(s?.oldestBootImage ?? null),
      skewStatus: skew,
      skewRank: rank(SKEW_ORDER, skew),
      readinessStatus: readiness,
      readinessRank: rank(READINESS_ORDER, readiness),
      mode: s?.enforcementMode ?? "unknown",
      blocker: s?.readinessBlocker ?? null,
      registryLess: s?.registryLess ?? false,
      swept: s !== null,
      searchText: [c.name, c.displayName, s?.version ?? "", JSON.stringify(c.labels)].join("\x1f").toLowerCase(),
    };
  });
}

async function actualIndex(): Promise<IndexRow[]> {
  const { rows } = await getPool().query<IndexRow>(
    `SELECT "name", "displayName", "labels", "platform", "offline", "contactFailed", "version", "minor", "versionKey", "oldestKey",
            "skewStatus", "skewRank", "readinessStatus", "readinessRank", "mode", "blocker", "registryLess", "swept", "searchText"
       FROM "FleetIndex" ORDER BY "name"`,
  );
  // jsonb's text puts a space after each colon and comma: compare the search text without them.
  return rows.map((r) => ({ ...r, searchText: String(r.searchText).replace(/": "/g, '":"').replace(/", "/g, '","') }));
}

const stateOf = (clusterId: string, fields: Record<string, unknown> = {}) => ({
  clusterId,
  snapshot: {},
  factHashes: {},
  observedAt: new Date(),
  lastSeenAt: new Date(),
  skewStatus: "ok",
  skewSummary: "",
  readinessStatus: "pass",
  ...fields,
});

async function register(name: string, labels: Record<string, string> = {}) {
  await insertCluster(
    {
      name,
      displayName: name.toUpperCase(),
      labels,
      platform: null,
      apiUrl: `https://api.${name}.example:6443`,
      encryptedCredentials: Buffer.from("x"),
    },
    { actor: "test" },
  );
  return (await getDb().cluster.findUniqueOrThrow({ where: { name } })).id;
}

const xminOf = async (name: string) =>
  (await getPool().query<{ xmin: string }>(`SELECT xmin::text FROM "FleetIndex" WHERE "name" = $1`, [name])).rows[0]?.xmin;

beforeAll(async () => {
  db = await createTestDatabase();
  // The schema as it was before the index, with a fleet in it.
  await migrateBefore(db.url, FLEET_INDEX);
  process.env.DATABASE_URL = db.url;
  delete process.env.FLEETSKEW_DATABASE_MODE;
  await seedFleetRows([
    {
      name: "before-a",
      labels: { env: "prod" },
      platform: "AWS",
      version: "4.19.10",
      skewStatus: "blocked",
      readinessStatus: "fail",
      readinessBlocker: "Upgradeable=False: AdminAckRequired",
    },
    { name: "before-b", version: "4.9.2", oldestBootImage: "4.8.0", skewStatus: "ok", enforcementMode: "Managed", registryLess: true },
    { name: "before-c", offline: true, version: "garbage", skewStatus: "at-risk", readinessStatus: "warn" },
  ]);
  await getPool()
    .query(`INSERT INTO "Cluster" ("id", "name", "displayName", "apiUrl", "encryptedCredentials", "updatedAt", "lastContactStatus")
                         VALUES (gen_random_uuid(), 'before-never-swept', 'Never', 'https://x.invalid', '\\x00', now(), 'unreachable')`);
  await closeDb();
  await migrate(db.url, { dir: migrationsDir });
});

afterAll(async () => {
  await closeDb();
  await db?.drop();
});

describe("the fleet index", () => {
  it("is filled from the fleet already there when the migration runs", async () => {
    const actual = await actualIndex();
    expect(actual.map((r) => r.name)).toEqual(["before-a", "before-b", "before-c", "before-never-swept"]);
    expect(actual).toEqual(await expectedIndex());
    const never = actual.find((r) => r.name === "before-never-swept")!;
    expect(never).toMatchObject({ skewStatus: "unknown", skewRank: 4, readinessRank: 3, contactFailed: true, versionKey: [999999] });
  });

  it("follows registration, sweeps, edits, hub states and removal", async () => {
    const id = await register("follow-me", { site: "s-1" });
    expect((await actualIndex()).find((r) => r.name === "follow-me")).toMatchObject({
      skewStatus: "unknown",
      version: null,
      labels: { site: "s-1" },
    });

    await getDb().clusterState.create({
      data: stateOf(id, { version: "4.20.3", skewStatus: "at-risk", enforcementMode: "Manual", oldestBootImage: "4.12.1" }),
    });
    expect(await actualIndex()).toEqual(await expectedIndex());

    await getDb().cluster.update({
      where: { id },
      data: { labels: { site: "s-2", tier: "gold" }, displayName: "Renamed", platform: "VSphere" },
    });
    await getDb().cluster.update({ where: { id }, data: { hubState: "lease-expired", lastContactStatus: "unauthorized" } });
    await getDb().clusterState.update({
      where: { clusterId: id },
      data: { readinessStatus: "fail", readinessBlocker: "Degraded", registryLess: true },
    });
    expect(await actualIndex()).toEqual(await expectedIndex());

    await getDb().clusterState.delete({ where: { clusterId: id } });
    expect((await actualIndex()).find((r) => r.name === "follow-me")).toMatchObject({
      skewStatus: "unknown",
      mode: "unknown",
      versionKey: [999999],
      blocker: null,
    });
    expect(await actualIndex()).toEqual(await expectedIndex());

    await getDb().cluster.delete({ where: { id } });
    expect((await actualIndex()).some((r) => r.name === "follow-me")).toBe(false);
  });

  it("is not written by a sweep that changed nothing it holds", async () => {
    const id = await register("steady");
    await getDb().clusterState.create({ data: stateOf(id, { version: "4.18.1" }) });
    const before = await xminOf("steady");
    await getDb().clusterState.update({ where: { clusterId: id }, data: { lastSeenAt: new Date(), snapshot: { moved: true } } });
    await getDb().cluster.update({ where: { id }, data: { lastContactAt: new Date(), lastContactStatus: "ok", lastContactError: null } });
    expect(await xminOf("steady")).toBe(before);
    await getDb().clusterState.update({ where: { clusterId: id }, data: { version: "4.18.2" } });
    expect(await xminOf("steady")).not.toBe(before);
  });

  it("answers the list's search, filters and counts as the tables say", async () => {
    await register("search-me", { team: "Blue-Whale" });
    const at = new Date();
    const names = async (filter: Parameters<typeof fleetWindow>[0]) =>
      (await fleetWindow(filter, { key: "name", desc: false }, null, 100, at)).rows.map((r) => r.name);
    // Case does not matter; LIKE's wildcards are matched as text; a search never spans two fields.
    expect(await names({ reach: FLEET_WIDE, search: "blue-WHALE" })).toEqual(["search-me"]);
    expect(await names({ reach: FLEET_WIDE, search: "4.19" })).toEqual(["before-a"]);
    expect(await names({ reach: FLEET_WIDE, search: "%" })).toEqual([]);
    expect(await names({ reach: FLEET_WIDE, search: "search-me\x1fsearch" })).toEqual([]);
    expect(await names({ reach: FLEET_WIDE, skew: "blocked" })).toEqual(["before-a"]);
    expect(await names({ reach: FLEET_WIDE, minor: "unknown" })).toEqual(["before-c", "before-never-swept", "search-me"]);

    const facets = await fleetFacets(at, FLEET_WIDE);
    const expected = await expectedIndex();
    expect(facets.clusters).toBe(expected.length);
    expect(facets.offline).toBe(expected.filter((r) => r.offline).length);
    expect(facets.registryLess).toBe(expected.filter((r) => r.registryLess).length);
    for (const [dimension, counts] of [
      ["skewStatus", facets.bySkew],
      ["readinessStatus", facets.byReadiness],
      ["platform", facets.byPlatform],
      ["mode", facets.byMode],
      ["minor", facets.byMinor],
    ] as const) {
      const want: Record<string, number> = {};
      for (const r of expected) want[String(r[dimension])] = (want[String(r[dimension])] ?? 0) + 1;
      expect(counts, dimension).toEqual(want);
    }
  });
});
