/**
 * /metrics at 10,000 clusters with a tenth of them in trouble (target: under 1 MB, under 200 ms): a
 * fresh database filled with fleet rows and ~10 KB snapshots; 1,000 clusters carry signals as the
 * collector writes them (a skew block at the next minor; half of them also Upgradeable=False; a fifth a
 * failed pre-load on two nodes; a tenth the channel's newest update blocked too), 200 more have failed
 * three sweeps, 100 have an acknowledgement pending for two days. Each scrape is the route's work:
 * every query, the text.
 *
 *   node --import tsx bench/metrics.ts        (BENCH_METRICS_CLUSTERS=10000, BENCH_METRICS_TROUBLED=0.1)
 */
import { metricsText } from "../server/fleet/metrics";
import { closeDb, getPool } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { seedFleetRows } from "../server/testing/fleetRows";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, percentile } from "./common";

const SIZE = Number(process.env.BENCH_METRICS_CLUSTERS ?? 10_000);
const TROUBLED = Number(process.env.BENCH_METRICS_TROUBLED ?? 0.1);
const SCRAPES = 30;
/** Under 200 ms at 10,000 clusters; issue 36 asks under 1 s at 100,000. */
const TARGET = { bytes: 1_000_000, p95Ms: SIZE > 10_000 ? 1_000 : 200 };

const MESSAGE =
  "Upgrades have been disabled because the cluster is using OCP boot image version 4.12.7, which is below the minimum required version 4.13.0. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at https://docs.redhat.com/en/documentation/openshift_container_platform/4.22/html/machine_configuration/mco-update-boot-skew-mgmt";

/** The signals the collector stores for the i-th troubled cluster (server/domain/alertSignals.ts). */
function signalsOf(i: number) {
  const block = (targetKind: string, target: string) => ({
    targetKind,
    target,
    stage: i % 3 === 0 ? "now" : "after-update",
    at: target,
    source: i % 3 === 0 ? "cluster" : "predicted",
    offered: i % 2 === 0,
    message: MESSAGE,
  });
  const pinned =
    i % 5 === 0 ? [0, 1].map((n) => ({ node: `worker-${n}`, set: "bundle-4-19-11-worker", error: "no space left on device" })) : [];
  return {
    skewBlocks: [block("next-minor", "4.22.3"), ...(i % 10 === 0 ? [block("newest", "4.23.1")] : [])],
    upgradeable:
      i % 2 === 0 ? { reason: "AdminAckRequired", message: "Kubernetes 1.36 removes several APIs", from: "ClusterVersion" } : null,
    pinnedFailures: pinned,
    pinnedFailureCount: pinned.length,
  };
}

async function main() {
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    const name = (i: number) => `store-${String(i).padStart(5, "0")}`;
    await seedFleetRows(
      Array.from({ length: SIZE }, (_, i) => ({
        name: name(i),
        labels: {
          environment: i % 10 ? "production" : "staging",
          "cluster.open-cluster-management.io/clusterset": `set-${i % 7}`,
          site: `s-${i % 40}`,
        },
        platform: "AWS",
        version: "4.21.8",
        skewStatus: i % 10 === 0 ? "at-risk" : "ok",
      })),
    );
    await getPool().query(`UPDATE "ClusterState" SET snapshot = jsonb_build_object('pad', repeat('x', 10000))`);
    const troubled = Math.round(SIZE * TROUBLED);
    const every = Math.max(1, Math.floor(SIZE / troubled));
    const rows = Array.from({ length: troubled }, (_, k) => ({ name: name(k * every), signals: signalsOf(k) }));
    await getPool().query(
      `UPDATE "ClusterState" s SET "signals" = x.signals FROM jsonb_to_recordset($1::jsonb) AS x(name text, signals jsonb), "Cluster" c
        WHERE c."name" = x.name AND s."clusterId" = c."id"`,
      [JSON.stringify(rows)],
    );
    // 200 unreachable for 4 sweeps, 100 acknowledgements pending for two days, among other clusters.
    await getPool().query(
      `INSERT INTO "SweepSchedule" ("clusterId", "failures", "lastError")
       SELECT "id", CASE WHEN "name" ~ '1$' AND substr("name", 7)::int % 50 = 1 THEN 4 ELSE 0 END, NULL FROM "Cluster"`,
    );
    await getPool().query(
      `UPDATE "Cluster" SET "lastContactStatus" = 'unreachable' WHERE "id" IN (SELECT "clusterId" FROM "SweepSchedule" WHERE "failures" > 0)`,
    );
    const user = await getPool().query<{ id: string }>(
      `INSERT INTO "User" ("id", "username", "role", "passwordHash", "updatedAt") VALUES (gen_random_uuid(), 'tech', 'technician', 'x', now()) RETURNING "id"`,
    );
    await getPool().query(
      `INSERT INTO "Acknowledgement" ("id", "clusterId", "mode", "evidence", "status", "requestedById", "requestedBy", "requestedAt", "expiresAt")
       SELECT gen_random_uuid(), "id", 'OCPVersion', 'replaced the AMIs', 'pending', $1, 'tech', now() - interval '2 days', now() + interval '5 days'
         FROM "Cluster" WHERE substr("name", 7)::int % 100 = 3`,
      [user.rows[0]!.id],
    );
    await getPool().query("ANALYZE");

    const times: number[] = [];
    const cpu: number[] = [];
    let text = "";
    for (let i = 0; i < SCRAPES; i++) {
      const start = performance.now();
      const used = process.cpuUsage();
      text = await metricsText();
      times.push(performance.now() - start);
      const spent = process.cpuUsage(used);
      cpu.push((spent.user + spent.system) / 1000);
    }
    // What the database spends on the scrape's two queries over the fleet (less sensitive to a busy machine than wall time).
    const explained: string[] = [];
    const pool = getPool();
    const original = pool.query.bind(pool) as (config: unknown, values?: unknown[]) => Promise<{ rows: Record<string, string>[] }>;
    (pool as unknown as { query: typeof original }).query = async (config, values) => {
      const c = config as { text?: string; values?: unknown[] };
      if (c?.text && /"Cluster" c|FROM candidates/.test(c.text) && /^\s*(SELECT|WITH)/i.test(c.text)) {
        const r = await original({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${c.text}`, values: c.values });
        const plan = (r.rows[0] as unknown as { "QUERY PLAN": { "Execution Time": number }[] })["QUERY PLAN"][0]!;
        explained.push(`${fmt(plan["Execution Time"], 1)} ms`);
      }
      return original(config, values);
    };
    await metricsText();
    (pool as unknown as { query: typeof original }).query = original;
    const bytes = Buffer.byteLength(text);
    const series = text.split("\n").filter((l) => l && !l.startsWith("#")).length;
    const perCluster = text.split("\n").filter((l) => l.startsWith("fleetskew_cluster_") && l.includes("{cluster=")).length;
    const p50 = percentile(times.slice(1), 50);
    const p95 = percentile(times.slice(1), 95);
    const load = (await import("node:os")).loadavg()[0]!;
    console.log(
      `/metrics at ${SIZE.toLocaleString("en")} clusters, ${troubled.toLocaleString("en")} with signals (+ failing sweeps, pending acknowledgements):`,
    );
    console.log(
      `  size: ${fmt(bytes / 1024, 0)} KiB, ${series} series (${perCluster} per-cluster)  ${bytes <= TARGET.bytes ? "PASS" : "MISS"} (target ≤ 1 MB)`,
    );
    console.log(
      `  time per scrape (${SCRAPES - 1} scrapes after a first): p50 ${fmt(p50, 0)} ms, p95 ${fmt(p95, 0)} ms  ${p95 <= TARGET.p95Ms ? "PASS" : "MISS"} (target ≤ ${TARGET.p95Ms} ms)`,
    );
    console.log(
      `  CPU of the console per scrape: p50 ${fmt(percentile(cpu.slice(1), 50), 0)} ms; Postgres execution of the fleet queries: ${explained.join(", ")}`,
    );
    console.log(`  (load average ${fmt(load, 1)} on ${(await import("node:os")).cpus().length} cores while measuring)`);
  } finally {
    await closeDb();
    await db.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
