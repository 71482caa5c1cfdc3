/**
 * History at fleet scale (docs/history.md, docs/benchmarks.md): a year of realistic changes for every
 * one of BENCH_HISTORY_CLUSTERS clusters (100,000 by default) in the month-partitioned history, then a
 * cluster's year-long timeline (p50 / p95, target p95 < 50 ms), the daily upkeep that folds the
 * months past the retention (180 days) into one row a day and drops them, and the timeline again.
 *
 * The year is the fleet benchmark's (bench/yearOfHistory.ts): 64 clusters' years are generated, and
 * every cluster gets one of them, shifted by a few minutes, copied inside Postgres (generating 23
 * million rows in Node would measure Node). The months of the past year get their partitions as the
 * upkeep would have made them, a month ahead each time.
 */
import os from "node:os";
import pg from "pg";
import { FLEET_WIDE } from "../server/domain/grants";
import { clusterTimeline } from "../server/fleet/fleet";
import { closeDb } from "../server/store/db";
import { historyBytes, keepHistory } from "../server/store/history";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, percentile } from "./common";
import { yearOfHistory } from "./yearOfHistory";

const CLUSTERS = Number(process.env.BENCH_HISTORY_CLUSTERS ?? 100_000);
const TEMPLATES = 64;
const TIMELINE_CALLS = 300;
const DAY = 86_400_000;
const RETENTION_DAYS = 180;
const TARGET_TIMELINE_P95_MS = 50;
const log = (line: string) => console.log(line);

async function timelines(names: string[]): Promise<{ p50: number; p95: number; points: number }> {
  const window = { from: new Date(Date.now() - 365 * DAY), to: new Date() };
  for (const name of names.slice(0, 10)) await clusterTimeline(name, FLEET_WIDE, window);
  const times: number[] = [];
  let points = 0;
  for (let i = 0; i < TIMELINE_CALLS; i++) {
    const name = names[(i * 7_919) % names.length]!;
    const started = performance.now();
    const t = await clusterTimeline(name, FLEET_WIDE, window);
    times.push(performance.now() - started);
    points += t.version.length + t.oldestBootImage.length + t.skew.length + t.events.length;
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95), points: points / TIMELINE_CALLS };
}

async function main() {
  if (!Number.isInteger(CLUSTERS) || CLUSTERS < TEMPLATES) throw new Error(`BENCH_HISTORY_CLUSTERS must be a whole number ≥ ${TEMPLATES}`);
  log(
    `machine: ${os.cpus().length} cores, ${fmt(os.totalmem() / 2 ** 30)} GiB; ${CLUSTERS.toLocaleString("en-US")} clusters, a year of history each`,
  );
  const db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    await client.connect();
    await client.query(
      `INSERT INTO "Cluster" ("id", "name", "displayName", "apiUrl", "encryptedCredentials", "updatedAt")
       SELECT gen_random_uuid(), 'c-' || lpad(n::text, 6, '0'), 'c-' || lpad(n::text, 6, '0'), 'https://example.invalid', '\\x00', now()
         FROM generate_series(0, $1 - 1) n`,
      [CLUSTERS],
    );
    // A year of partitions, as the upkeep makes them month by month.
    for (let m = 13; m >= 1; m--) {
      const start = new Date();
      start.setUTCDate(1);
      start.setUTCHours(0, 0, 0, 0);
      start.setUTCMonth(start.getUTCMonth() - m);
      const end = new Date(start);
      end.setUTCMonth(end.getUTCMonth() + 1);
      const name = `ClusterFact_${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, "0")}`;
      await client.query(
        `CREATE TABLE "${name}" PARTITION OF "ClusterFact" FOR VALUES FROM ('${start.toISOString()}') TO ('${end.toISOString()}')`,
      );
    }
    const to = new Date(Date.now() - 60_000);
    const from = new Date(to.getTime() - 365 * DAY);
    await client.query(`CREATE UNLOGGED TABLE year ("t" int, "at" timestamp(3), "fact" text, "key" text, "value" jsonb)`);
    let perYear = 0;
    for (let t = 0; t < TEMPLATES; t++) {
      const rows = yearOfHistory("00000000-0000-0000-0000-000000000000", t, { machineSets: [], pools: [] }, from, to);
      perYear += rows.length;
      await client.query(`INSERT INTO year SELECT $1, * FROM unnest($2::timestamp[], $3::text[], $4::text[], $5::jsonb[])`, [
        t,
        rows.map((r) => r.at.toISOString()),
        rows.map((r) => r.fact),
        rows.map((r) => r.key),
        rows.map((r) => (r.value === null ? null : JSON.stringify(r.value))),
      ]);
    }
    log(`a cluster's year: ${fmt(perYear / TEMPLATES, 0)} changes on average (${fmt(perYear / TEMPLATES / 365, 2)} a day)`);
    const seedStarted = performance.now();
    const CHUNK = 10_000;
    for (let first = 0; first < CLUSTERS; first += CHUNK) {
      await client.query(
        `INSERT INTO "ClusterFact" ("clusterId", "at", "fact", "key", "value")
         SELECT c."id", y."at" - make_interval(mins => (c.n % 97)::int), y."fact", y."key", y."value"
           FROM (SELECT "id", (substr("name", 3))::int AS n FROM "Cluster" WHERE "name" >= $1 AND "name" < $2) c
           JOIN year y ON y."t" = c.n % ${TEMPLATES}
          WHERE y."at" - make_interval(mins => (c.n % 97)::int) >= now() - interval '13 months'`,
        [`c-${String(first).padStart(6, "0")}`, `c-${String(first + CHUNK).padStart(6, "0")}`],
      );
      process.stderr.write(`\rseeded ${Math.min(first + CHUNK, CLUSTERS).toLocaleString("en-US")} clusters`);
    }
    process.stderr.write("\n");
    await client.query(`ANALYZE "ClusterFact"`);
    const rows = Number((await client.query(`SELECT count(*) AS n FROM "ClusterFact"`)).rows[0].n);
    const bytes = await historyBytes();
    log(
      `history: ${rows.toLocaleString("en-US")} rows, ${fmt(bytes / 2 ** 30, 2)} GiB with indexes (${fmt(bytes / CLUSTERS / 365, 0)} B per cluster-day), seeded in ${fmt((performance.now() - seedStarted) / 1000, 0)} s`,
    );

    const names = (await client.query<{ name: string }>(`SELECT "name" FROM "Cluster" ORDER BY "name"`)).rows.map((r) => r.name);
    const before = await timelines(names);
    const verdict = (p95: number) => (p95 < TARGET_TIMELINE_P95_MS ? "met" : "MISSED");
    log(
      `cluster timeline, 1 year, every change kept, p50/p95: ${fmt(before.p50)} / ${fmt(before.p95)} ms (${fmt(before.points, 0)} points; target p95 < ${TARGET_TIMELINE_P95_MS} ms: ${verdict(before.p95)})`,
    );

    const keepStarted = performance.now();
    const kept = await keepHistory(new Date(Date.now() - RETENTION_DAYS * DAY), new Date(Date.now() - 1_095 * DAY));
    const keepSeconds = (performance.now() - keepStarted) / 1000;
    await client.query(`ANALYZE "ClusterFact"; ANALYZE "ClusterFactDaily"`);
    const daily = Number((await client.query(`SELECT count(*) AS n FROM "ClusterFactDaily"`)).rows[0].n);
    const bytesAfter = await historyBytes();
    log(
      `upkeep at ${RETENTION_DAYS} days: ${kept.dropped} months folded and dropped in ${fmt(keepSeconds, 1)} s, ${kept.folded.toLocaleString("en-US")} daily rows; history now ${fmt(bytesAfter / 2 ** 30, 2)} GiB (${daily.toLocaleString("en-US")} daily rows)`,
    );
    const after = await timelines(names);
    log(
      `cluster timeline, 1 year, ${RETENTION_DAYS} days of every change and daily rows before, p50/p95: ${fmt(after.p50)} / ${fmt(after.p95)} ms (${fmt(after.points, 0)} points; target p95 < ${TARGET_TIMELINE_P95_MS} ms: ${verdict(after.p95)})`,
    );
  } finally {
    await client.end().catch(() => undefined);
    await closeDb();
    await db.drop();
  }
}

main().catch((error) => {
  console.error("bench failed:", error);
  process.exit(1);
});
