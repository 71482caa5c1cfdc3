/**
 * Sweeping a fleet through an ACM hub's cluster-proxy beside sweeping the same clusters directly.
 * A simulated hub of BENCH_HUB_CLUSTERS (default 10,000) managed clusters runs in a process of its
 * own (`npm run simulator -- --hub`); the hub is registered as an admin would, its sync creates a
 * ClusterPermission per cluster and registers the eligible ones, and the collector (concurrency
 * BENCH_HUB_SWEEP_CONCURRENCY, default 32, the hub's cap set to the same) sweeps every one of them
 * through the proxy. Then the same clusters are registered with their own API URL and token, in a
 * fresh database, and swept again. Prints both rates and their ratio.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sealCredentials } from "../server/clusters/registration";
import { Collector, defaultCollectorOptions } from "../server/collector/collector";
import { appConfig } from "../server/config/current";
import { tokenFor } from "../server/simulator/scenarios/generate";
import { closeDb, getDb } from "../server/store/db";
import { insertClusters, type NewCluster } from "../server/store/clusters";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, onboardHub, procStatus, startHubSimulator } from "./common";

const CLUSTERS = Number(process.env.BENCH_HUB_CLUSTERS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_HUB_SWEEP_CONCURRENCY ?? 32);
const SEED = 1;
process.env.FLEETSKEW_SECRET_KEY ??= randomBytes(32).toString("base64");

/**
 * The time until every registered cluster has been swept once (ok or failed). The collector's
 * interval is long, so that nothing comes due twice; retries of failed clusters are not counted.
 */
async function sweepAll(worker: string, total: number): Promise<{ seconds: number; ok: number; failed: number }> {
  const collector = new Collector({ ...defaultCollectorOptions(appConfig(), worker), concurrency: CONCURRENCY, intervalMs: 6 * 3_600_000 });
  const seen = new Set<string>();
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  let firstPass = 0;
  const everyOne = new Promise<void>((resolve) => {
    collector.options.onSweep = (r) => {
      if (seen.has(r.cluster)) return;
      seen.add(r.cluster);
      if (r.outcome === "ok") ok++;
      else failed++;
      if (seen.size >= total) {
        firstPass = performance.now();
        resolve();
      }
    };
  });
  const pass = collector.runOnce();
  await Promise.race([everyOne, pass]);
  firstPass ||= performance.now();
  // Failed clusters come due again within seconds: nothing more is due once each was swept once.
  await getDb().sweepSchedule.updateMany({ data: { nextSweepAt: new Date(Date.now() + 86_400_000) } });
  await pass;
  return { seconds: (firstPass - started) / 1000, ok, failed };
}

async function withDatabase<T>(work: () => Promise<T>): Promise<T> {
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    return await work();
  } finally {
    await closeDb().catch(() => undefined);
    await db.drop().catch(() => undefined);
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-bench-hub-"));
  const started = performance.now();
  const hub = await startHubSimulator(CLUSTERS, dir, SEED);
  console.log(`hub sweep, ${CLUSTERS.toLocaleString()} managed clusters, collector concurrency ${CONCURRENCY}`);
  console.log(`  hub simulator started in ${fmt((performance.now() - started) / 1000)} s`);
  try {
    const viaHub = await withDatabase(async () => {
      const onboard = performance.now();
      const registered = await onboardHub("bench-hub", hub.registration, CONCURRENCY);
      const onboardSeconds = (performance.now() - onboard) / 1000;
      console.log(
        `  onboarded from the hub: ${registered.toLocaleString()} clusters registered in ${fmt(onboardSeconds)} s (ClusterPermissions created and applied, no per-cluster input)`,
      );
      const names = (await getDb().cluster.findMany({ select: { name: true } })).map((c) => c.name);
      const sweep = await sweepAll("bench-hub", names.length);
      console.log(
        `  swept through the proxy: ${sweep.ok.toLocaleString()} ok, ${sweep.failed} failed in ${fmt(sweep.seconds)} s: ${fmt(names.length / sweep.seconds)} clusters/s`,
      );
      return { names, sweep, onboardSeconds };
    });
    const direct = await withDatabase(async () => {
      const batch: NewCluster[] = [];
      for (const name of viaHub.names) {
        // local-cluster is the hub itself: it has no API of its own in the simulator beside the proxy's.
        const credentials = {
          server: `${hub.clustersUrl}/clusters/${name}`,
          token: tokenFor(name, SEED),
          certificateAuthority: hub.registration.ca,
          insecureSkipTlsVerify: false,
        };
        batch.push({
          name,
          displayName: name,
          labels: {},
          platform: null,
          apiUrl: credentials.server,
          encryptedCredentials: await sealCredentials(name, credentials),
        });
      }
      for (let i = 0; i < batch.length; i += 1_000) await insertClusters(batch.slice(i, i + 1_000), { actor: "bench" });
      const sweep = await sweepAll("bench-direct", viaHub.names.length);
      console.log(
        `  swept directly:          ${sweep.ok.toLocaleString()} ok, ${sweep.failed} failed in ${fmt(sweep.seconds)} s: ${fmt(viaHub.names.length / sweep.seconds)} clusters/s`,
      );
      return sweep;
    });
    const ratio = viaHub.sweep.seconds / direct.seconds;
    console.log(`  hub simulator peak RSS ${fmt(procStatus(hub.child.pid!, "VmHWM"))} MiB`);
    console.log("\n| Figure | Result |\n| --- | --- |");
    console.log(`| Onboarding ${viaHub.names.length.toLocaleString()} clusters from the hub | ${fmt(viaHub.onboardSeconds)} s |`);
    console.log(
      `| Sweep through the hub's proxy | ${fmt(viaHub.sweep.seconds)} s (${fmt(viaHub.names.length / viaHub.sweep.seconds)} clusters/s) |`,
    );
    console.log(`| Sweep directly | ${fmt(direct.seconds)} s (${fmt(viaHub.names.length / direct.seconds)} clusters/s) |`);
    console.log(`| Ratio (through the hub / direct) | ${fmt(ratio, 2)}× the time |`);
  } finally {
    hub.child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
