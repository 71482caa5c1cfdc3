/** `npm run bench`: every benchmark, each printing its own figures (docs/benchmarks.md). */
import { spawnSync } from "node:child_process";
import path from "node:path";

// The benchmarks that run the collector in their own process do so with the V8 flags `npm run collector` uses.
const COLLECTOR_FLAGS = ["--max-old-space-size=768", "--max-semi-space-size=32"];
const benches: { file: string; flags: string[]; env?: Record<string, string> }[] = [
  { file: "disruption.ts", flags: [] },
  { file: "simulator.ts", flags: [] },
  // One process serving 100,000 generated clusters: start-up, memory, CPU per cluster read.
  { file: "simulator.ts", flags: [], env: { BENCH_CLUSTERS: "100000", BENCH_SWEEP: "4000" } },
  // CPU per steady cluster-sweep, collector and simulator apart, at 1,000 clusters.
  { file: "sweepCost.ts", flags: COLLECTOR_FLAGS, env: { BENCH_COST_CLUSTERS: "1000" } },
  // The same through a simulated hub's cluster-proxy, the path of most of a 100,000-cluster fleet.
  { file: "sweepCost.ts", flags: COLLECTOR_FLAGS, env: { BENCH_COST_CLUSTERS: "1000", BENCH_COST_HUB: "1" } },
  { file: "hub.ts", flags: [] },
  // Sweeping 10,000 clusters through a simulated hub's cluster-proxy beside sweeping them directly.
  { file: "hubSweep.ts", flags: COLLECTOR_FLAGS },
  { file: "bulk.ts", flags: [] },
  // Planning a rollout over 10,000 clusters, saving it, and reading its page.
  { file: "rolloutPlan.ts", flags: [] },
  // A bundle rollout over 1,000 simulated clusters end to end (the fleet in a child process, at high --speed).
  { file: "bundleRollout.ts", flags: [] },
  // The rollout page at 10,000 clusters in Chromium (needs the build and Chromium).
  { file: "rolloutPage.ts", flags: [] },
  { file: "rolloutPage.ts", flags: [], env: { BENCH_ROLLOUT_PAGE_WAVE: "250" } },
  // /metrics at 10,000 clusters, a tenth of them needing action.
  { file: "metrics.ts", flags: [] },
  // /metrics and the rollout page's first rows with a 10,000-cluster rollout at maxConcurrency 1 awaiting approval.
  { file: "rolloutScale.ts", flags: [] },
  { file: "fleet.ts", flags: ["--expose-gc", ...COLLECTOR_FLAGS] },
  // The console at 100,000 clusters: the fleet list, search, counts and CSV; the rollout dry run and /metrics at that size.
  { file: "fleet100k.ts", flags: ["--expose-gc"] },
  { file: "rolloutPlan.ts", flags: [], env: { BENCH_ROLLOUT_CLUSTERS: "100000" } },
  { file: "metrics.ts", flags: [], env: { BENCH_METRICS_CLUSTERS: "100000" } },
  // A year of history for each of 100,000 clusters, partitioned by month: timelines, and the upkeep past the retention.
  { file: "history.ts", flags: [] },
  // A first sweep with the clusters' monitoring Routes unresolvable, beside the same with them reachable.
  { file: "unresolvedRoutes.ts", flags: COLLECTOR_FLAGS, env: { BENCH_ROUTES_CLUSTERS: "2000" } },
  // The console in Chromium at 10,000 clusters: what people see (needs the build and Chromium), in both
  // layouts: sweeping in `npm start`'s own background process, and in a collector worker beside it.
  { file: "fleetView.ts", flags: [], env: { BENCH_VIEW_COLLECTOR: "web" } },
  { file: "fleetView.ts", flags: [], env: { BENCH_VIEW_COLLECTOR: "worker" } },
  // Sizing per 1,000 clusters (docs/operations.md): a collector process of its own, for five and a half minutes.
  { file: "sizing.ts", flags: [] },
];
let failed = false;
for (const bench of benches) {
  console.log(
    `\n== ${bench.file}${
      bench.env
        ? ` (${Object.entries(bench.env)
            .map(([k, v]) => `${k}=${v}`)
            .join(" ")})`
        : ""
    }`,
  );
  const result = spawnSync(process.execPath, [...bench.flags, "--import", "tsx", path.join(__dirname, bench.file)], {
    stdio: "inherit",
    // The benches that run a collector in their own process measure it as `npm run collector` runs it.
    env: { MALLOC_ARENA_MAX: "2", ...process.env, ...bench.env },
  });
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
