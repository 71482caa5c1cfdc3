/**
 * Planning a rollout over 10,000 clusters (target: under 2 s): the selection by a fleet query, each
 * cluster's checks, the waves grouped by site with maintenance windows, and the estimate; then
 * saving the plan (10,000 rows) and reading the rollout's page of clusters.
 *
 *   node --import tsx bench/rolloutPlan.ts        (BENCH_ROLLOUT_CLUSTERS=10000)
 */
import { closeDb, getPool } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { seedFleetRows } from "../server/testing/fleetRows";
import { testActor } from "../server/testing/actors";
import { RolloutRequestSchema } from "../server/domain/rollouts/request";
import { planRollout, saveRollout } from "../server/rollouts/plan";
import { rolloutClusterPage, rolloutView } from "../server/rollouts/manage";
import { fmt } from "./common";

const SIZE = Number(process.env.BENCH_ROLLOUT_CLUSTERS ?? 10_000);

async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await work();
  console.log(`${what}: ${fmt(performance.now() - start, 0)} ms`);
  return result;
}

async function main() {
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    process.env.FLEETSKEW_SECRET_KEY ??= Buffer.alloc(32, 7).toString("base64");
    await seedFleetRows(
      Array.from({ length: SIZE }, (_, i) => ({
        name: `store-${String(i).padStart(5, "0")}`,
        labels: { site: `s-${i % 40}`, env: i % 10 ? "prod" : "stage" },
        platform: "AWS",
        version: `4.19.${i % 11}`,
        readinessStatus: ["pass", "warn", "fail"][i % 3],
      })),
    );
    // Snapshots as large as real ones (~10 KB) with what a 4.19 cluster's ClusterVersion carries (its
    // conditions and update lists), the MCO's conditions and the admin gates: what the plan's update gates read.
    const conditions = (current: string) =>
      JSON.stringify([
        { type: "Available", status: "True", reason: null, message: `Done applying ${current}`, since: null },
        { type: "Failing", status: "False", reason: null, message: null, since: null },
        { type: "Progressing", status: "False", reason: null, message: `Cluster version is ${current}`, since: null },
        { type: "RetrievedUpdates", status: "True", reason: null, message: null, since: null },
        { type: "ReleaseAccepted", status: "True", reason: "PayloadLoaded", message: `Payload loaded version="${current}"`, since: null },
        { type: "Upgradeable", status: "False", reason: "AdminAckRequired", message: "Kubernetes 1.33 removes APIs", since: null },
      ]);
    await getPool().query(
      `UPDATE "ClusterState" SET snapshot = jsonb_build_object('pad', repeat('x', 10000), 'version',
         jsonb_build_object('current', "version", 'desired', "version", 'updating', false, 'history', '[]'::jsonb,
           'conditions', replace($1, '@', "version")::jsonb,
           'availableUpdates', '["4.19.11","4.19.12"]'::jsonb, 'conditionalUpdates',
           '[{"version":"4.19.13","recommended":"False","risks":[{"name":"AWSOldBootImages","message":"m","url":null}]}]'::jsonb),
         'machineConfigOperator', '[{"type":"Available","status":"True"},{"type":"Degraded","status":"False"},{"type":"Upgradeable","status":"True"}]'::jsonb,
         'adminGates', '{"ack-4.19-kube-1.33-api-removals-in-4.20":"Kubernetes 1.33 removes APIs; see the article"}'::jsonb,
         'adminAcks', '{}'::jsonb, 'problems', '[]'::jsonb)`,
      [conditions("@")],
    );
    await getPool().query("ANALYZE");
    const request = RolloutRequestSchema.parse({
      kind: "upgrade",
      target: "4.19.11",
      selection: { query: "platform=AWS&version=4.19" },
      strategy: { canaries: 5, maxConcurrency: "5%", groupBy: "site", maxFailures: "2%", minSuccessTime: "30m", progressDeadline: "2h" },
      windows: { default: { schedule: "0 1 * * *", duration: "5h", timeZone: "Europe/Paris" } },
    });
    for (let i = 0; i < 2; i++) await timed(`plan over ${SIZE} clusters, run ${i + 1}`, () => planRollout(request));
    const plan = await planRollout(request);
    console.log(
      `  ${plan.waves.length} waves, ${plan.waves.reduce((n, w) => n + w.clusters.length, 0)} included, ${plan.excluded.length} excluded`,
    );
    const actor = await testActor("bench-tech", "technician");
    const saved = await timed("save the plan", () => saveRollout(request, plan, actor));
    await timed("the rollout's view (counts per wave and state)", () => rolloutView(saved.id));
    const page = await timed("first page of 100 clusters", () => rolloutClusterPage(saved.id, { limit: 100 }));
    console.log(`  page body ${fmt(JSON.stringify(page).length / 1024)} KB`);
  } finally {
    await closeDb();
    await db.drop();
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
