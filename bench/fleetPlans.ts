/**
 * The query plans of the fleet view at 10,000 clusters (EXPLAIN ANALYZE of every query one window,
 * its count and the counts of the whole fleet run), on a fresh database filled with summaries and
 * snapshots of a realistic size: how docs/benchmarks.md chose the fleet tables' indexes.
 *
 *   node --import tsx bench/fleetPlans.ts
 */
import type pg from "pg";
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
    const cases: [string, FleetFilter, FleetSort][] = [
      ["default view (sort skew)", {}, { key: "skew", desc: false }],
      ["skew=blocked sort name", { skew: "blocked" }, { key: "name", desc: false }],
      ["label site=s-7 sort version", { labels: [{ key: "site", value: "s-7" }] }, { key: "version", desc: false }],
      ["search 'east-012'", { search: "east-012" }, { key: "skew", desc: false }],
      [
        "hub + registryLess",
        { labels: [{ key: "fleetskew.io/hub", value: "hub-1" }], registryLess: true },
        { key: "lastSeen", desc: true },
      ],
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
    plans.length = 0;
    await fleetFacets(stale);
    console.log("== facets");
    for (const p of plans)
      console.log(
        p
          .split("\n")
          .filter((l) => /Execution Time|Seq Scan|Index/.test(l) || !l.startsWith("   "))
          .join("\n"),
      );
  } finally {
    await closeDb();
    await db.drop();
  }
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
