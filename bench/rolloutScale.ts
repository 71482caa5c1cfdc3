import { actorFor } from "../server/auth/actor";
/**
 * A rollout as large as it gets, awaiting approval: 10,000 clusters at maxConcurrency 1, so 10,000
 * waves of one cluster. What it costs the console while it waits: each `/metrics` scrape (the route's
 * work: every query and the text; a rollout awaiting approval has series of its own) and the rollout
 * page's first rows (the page's server work: the rollout's view with its 10,000 waves, and the
 * first 100 clusters), on a fresh Postgres database. Targets: scrape p95 under 200 ms; the page's
 * first rows under 1 s. A missed target is reported, not fatal (docs/benchmarks.md).
 *
 *   node --import tsx bench/rolloutScale.ts        (BENCH_ROLLOUT_SCALE_CLUSTERS=10000)
 */
import { randomBytes } from "node:crypto";
import os from "node:os";
import { hashPassword } from "../server/auth/password";
import { metricsText } from "../server/fleet/metrics";
import { rolloutFigures } from "../server/domain/rollouts/figures";
import { RolloutRequestSchema } from "../server/domain/rollouts/request";
import { ROLLOUT_SERIES_LIMIT } from "../server/rollouts/metrics";
import { activeRolloutCounts } from "../server/store/rolloutCounts";
import { rolloutClusterPage, rolloutView } from "../server/rollouts/manage";
import { planRollout, saveRollout } from "../server/rollouts/plan";
import { closeDb, getPool } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { createUser } from "../server/store/users";
import { seedFleetRows } from "../server/testing/fleetRows";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, percentile } from "./common";

const SIZE = Number(process.env.BENCH_ROLLOUT_SCALE_CLUSTERS ?? 10_000);
const RUNS = 30;
const TARGET = { scrapeP95Ms: 200, firstRowsMs: 1000 };

const report = (figure: string, result: string, target: string | null, met: boolean | null) =>
  console.log(`  ${figure}: ${result}${target ? ` (target ${target}${met === null ? "" : met ? ": met" : ": MISSED"})` : ""}`);

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number[]; last: T }> {
  let last = await work(); // warm: the first of each is not what a steady console pays
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    last = await work();
    ms.push(performance.now() - t);
  }
  return { ms, last };
}

async function main() {
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
    console.log(
      `a rollout over ${SIZE.toLocaleString()} clusters at maxConcurrency 1, awaiting approval (load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")})`,
    );
    const names = Array.from({ length: SIZE }, (_, i) => `store-${String(i).padStart(5, "0")}`);
    await seedFleetRows(
      names.map((name, i) => ({ name, labels: { site: `s-${i % 40}` }, platform: "AWS", version: "4.19.10", readinessStatus: "pass" })),
    );
    await getPool().query(
      `UPDATE "ClusterState" SET snapshot = jsonb_build_object('version', jsonb_build_object('availableUpdates', '["4.19.11"]'::jsonb))`,
    );
    const user = await createUser(
      { username: "bench-tech", role: "technician", passwordHash: await hashPassword(randomBytes(9).toString("hex")) },
      { actor: null },
    );
    const request = RolloutRequestSchema.parse({
      kind: "upgrade",
      target: "4.19.11",
      selection: { query: "" },
      strategy: { canaries: 0, maxConcurrency: 1, maxFailures: "1%", releaseEachWave: true },
    });
    let t = performance.now();
    const plan = await planRollout(request);
    const saved = await saveRollout(request, plan, actorFor(user, "127.0.0.1"));
    report("planned and saved", `${plan.waves.length.toLocaleString()} waves in ${fmt((performance.now() - t) / 1000)} s`, null, null);
    await getPool().query("ANALYZE");

    const scrape = await timed(() => metricsText());
    const scrapeP95 = percentile(scrape.ms, 95);
    const series = scrape.last.split("\n").filter((l) => l.startsWith(`fleetskew_rollout_`) && l.includes(`rollout="${saved.number}"`));
    report(
      `/metrics scrape, p50 / p95 of ${RUNS}`,
      `${fmt(percentile(scrape.ms, 50), 0)} / ${fmt(scrapeP95, 0)} ms, ${fmt(Buffer.byteLength(scrape.last) / 1024)} KB, ${series.length} series of the rollout`,
      `p95 < ${TARGET.scrapeP95Ms} ms`,
      scrapeP95 < TARGET.scrapeP95Ms,
    );
    // The rollouts' share of it: their counts read (two queries), then worked out (server/domain/rollouts/figures.ts).
    const share = await timed(async () =>
      (await activeRolloutCounts(ROLLOUT_SERIES_LIMIT)).rollouts.map((r) => rolloutFigures(r, new Date())),
    );
    report(
      `of which the rollouts' series (counts read, figures worked out), p50 / p95`,
      `${fmt(percentile(share.ms, 50), 0)} / ${fmt(percentile(share.ms, 95), 0)} ms (wave ${share.last[0]?.wave} of ${share.last[0]?.waves})`,
      null,
      null,
    );
    const waves = series.find((l) => l.startsWith("fleetskew_rollout_waves{"));
    if (!waves?.endsWith(` ${SIZE}`)) throw new Error(`the scrape does not say ${SIZE} waves: ${waves}`);

    const page = await timed(() => Promise.all([rolloutView(saved.id), rolloutClusterPage(saved.id, { limit: 100 })]));
    const [view, first] = page.last;
    const pageP95 = percentile(page.ms, 95);
    if (first.clusters[0]?.clusterName !== names[0] || view.waves.length !== SIZE)
      throw new Error("the page's first rows are not the plan's");
    report(
      `the rollout page's first rows (its view with every wave, and the first 100 clusters), p50 / p95 of ${RUNS}`,
      `${fmt(percentile(page.ms, 50), 0)} / ${fmt(pageP95, 0)} ms, ${fmt(Buffer.byteLength(JSON.stringify(page.last)) / 1024)} KB of data`,
      `< ${TARGET.firstRowsMs} ms`,
      pageP95 < TARGET.firstRowsMs,
    );
    t = performance.now();
    const after = await rolloutClusterPage(saved.id, { limit: 100, after: `5000:${names[4999]}` });
    report("a later page (after wave 5,000)", `${fmt(performance.now() - t, 0)} ms, first ${after.clusters[0]?.clusterName}`, null, null);
  } finally {
    await closeDb();
    await db.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
