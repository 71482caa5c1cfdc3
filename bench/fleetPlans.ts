/**
 * The query plans of the fleet view at 10,000 clusters (EXPLAIN ANALYZE of every query one window,
 * its count and the counts of the whole fleet run), on a fresh database filled with summaries and
 * snapshots of a realistic size: how docs/benchmarks.md chose the fleet tables' indexes.
 *
 *   node --import tsx bench/fleetPlans.ts
 */
import type pg from "pg";
import { FLEET_WIDE, type Reach } from "../server/domain/grants";
import { parseScope } from "../server/domain/scope";
import { closeDb, getPool } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { seedFleetRows } from "../server/testing/fleetRows";
import { fleetFacets, fleetWindow, type FleetFilter, type FleetSort } from "../server/store/fleetWindow";

async function main() {
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    const P = ["AWS", "GCP", "VSphere", "BareMetal", null];
    await seedFleetRows(
      Array.from({ length: 10000 }, (_, i) => ({
        name: `store-east-${String(i).padStart(5, "0")}`,
        labels: {
          site: `s-${i % 40}`,
          "cluster.open-cluster-management.io/clusterset": `set-${i % 7}`,
          "fleetskew.io/hub": `hub-${i % 3}`,
        },
        platform: P[i % 5],
        version: `4.${12 + (i % 9)}.${i % 13}`,
        skewStatus: ["ok", "at-risk", "blocked", "opted-out", "unknown"][i % 5],
        oldestBootImage: `4.${10 + (i % 7)}.0`,
        readinessStatus: ["pass", "warn", "fail", "unknown"][i % 4],
        readinessBlocker: i % 4 === 2 ? `blocker ${i % 6}` : null,
        enforcementMode: i % 2 ? "Manual" : "Automatic",
        registryLess: i % 100 === 0,
      })),
    );
    // Snapshots as large as real ones (~10 KB), so the table is the size it is in production.
    await getPool().query(`UPDATE "ClusterState" SET snapshot = jsonb_build_object('pad', repeat('x', 10000))`);
    await getPool().query("ANALYZE");
    // Every query the fleet view sends goes through the pool: explain each one before it runs.
    const pool = getPool();
    const original = pool.query.bind(pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
    const plans: string[] = [];
    (pool as unknown as { query: (config: pg.QueryConfig) => Promise<pg.QueryResult> }).query = async (config) => {
      if (/^\s*(SELECT|WITH)/i.test(config.text)) {
        const r = await original({ text: `EXPLAIN (ANALYZE, BUFFERS OFF, TIMING ON) ${config.text}`, values: config.values });
        plans.push(
          `${config.text.replace(/\s+/g, " ").slice(0, 160)}\n${r.rows.map((x: Record<string, string>) => `   ${x["QUERY PLAN"]}`).join("\n")}`,
        );
      }
      return original(config);
    };
    const stale = new Date(Date.now() - 3600_000);
    /** A reader with three scoped grants: two cluster sets and a site within a third (about a third of the fleet). */
    const scoped: Reach = {
      kind: "scopes",
      anyOf: ["clusterSet=set-1", "clusterSet=set-3", "clusterSet=set-5&label=site=s-7"].map((t) => {
        const read = parseScope(t);
        if (!read.ok) throw new Error(t);
        return read.scope;
      }),
    };
    const cases: [string, FleetFilter, FleetSort][] = [
      ["default view (sort skew)", { reach: FLEET_WIDE }, { key: "skew", desc: false }],
      ["skew=blocked sort name", { reach: FLEET_WIDE, skew: "blocked" }, { key: "name", desc: false }],
      ["label site=s-7 sort version", { reach: FLEET_WIDE, labels: [{ key: "site", value: "s-7" }] }, { key: "version", desc: false }],
      ["search 'east-012'", { reach: FLEET_WIDE, search: "east-012" }, { key: "skew", desc: false }],
      [
        "hub + registryLess",
        { reach: FLEET_WIDE, labels: [{ key: "fleetskew.io/hub", value: "hub-1" }], registryLess: true },
        { key: "lastSeen", desc: true },
      ],
      ["reader with three scoped grants, default view", { reach: scoped }, { key: "skew", desc: false }],
      ["reader with three scoped grants, search 'east-012'", { reach: scoped, search: "east-012" }, { key: "name", desc: false }],
    ];
    for (const [name, filter, sort] of cases) {
      plans.length = 0;
      const t = performance.now();
      await fleetWindow(filter, sort, null, 100, stale);
      console.log(`== ${name}: ${(performance.now() - t).toFixed(1)} ms (with EXPLAIN overhead)`);
      for (const p of plans)
        console.log(
          p
            .split("\n")
            .filter((l) => /Execution Time|Seq Scan|Index|Sort Method|Hash Join|Limit/.test(l) || !l.startsWith("   "))
            .join("\n"),
        );
    }
    for (const [name, reach] of [
      ["facets", FLEET_WIDE],
      ["facets, reader with three scoped grants", scoped],
    ] as const) {
      plans.length = 0;
      await fleetFacets(stale, reach);
      console.log(`== ${name}`);
      for (const p of plans)
        console.log(
          p
            .split("\n")
            .filter((l) => /Execution Time|Seq Scan|Index/.test(l) || !l.startsWith("   "))
            .join("\n"),
        );
    }
  } finally {
    await closeDb();
    await db.drop();
  }
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
