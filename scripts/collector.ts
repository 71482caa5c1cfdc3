/**
 * `npm run collector`: an extra background process. Workers share the fleet by shards (each hub's
 * clusters, and the direct ones) and per-cluster claims in Postgres, and the other background work
 * through the job system, so start as many as the fleet needs; each sweeps only its shards' clusters
 * that nobody else holds and runs only jobs nobody else runs.
 */
import path from "node:path";
import { ConfigError, readConfig } from "../server/config/env";
import { checkDatabaseReachable } from "../server/runtime/database";
import { startBackgroundWork } from "../server/runtime/background";
import { processIdentity } from "../server/runtime/identity";
import { readKeyring } from "../server/secrets/keyring";
import { SecretKeyError } from "../server/secrets/secretBox";
import { agreeOnSecretKey } from "../server/secrets/sharedKey";
import { closeDb } from "../server/store/db";
import { prepareSchema } from "../server/runtime/schema";
import { MigrationError } from "../server/store/migrate";

async function main() {
  const config = readConfig();
  if (!config.databaseUrl)
    throw new ConfigError(
      "extra collector workers share the fleet through Postgres: set DATABASE_URL (the embedded database serves one process only)",
    );
  await checkDatabaseReachable(config.databaseUrl);
  process.env.DATABASE_URL = config.databaseUrl;
  await prepareSchema(config.databaseUrl, {
    dir: path.resolve(__dirname, "../prisma/migrations"),
    migrate: config.migrate,
    log: (line) => console.log(`fleetskew collector: ${line}`),
  });
  const identity = processIdentity("collector");
  // The collector opens the credentials the web process sealed: the same key, or it must not start.
  const ring = await readKeyring(config);
  if (!ring)
    throw new ConfigError(
      "a collector opens the cluster credentials the console sealed: set FLEETSKEW_SECRET_KEY to the console's key (or FLEETSKEW_DATA_DIR to its data directory)",
    );
  const agreed = await agreeOnSecretKey(ring, identity.name);
  if (agreed.outcome === "rotated")
    console.log(`fleetskew collector: the secret key moved from ${agreed.previousKeyId} to ${ring.current.id}`);
  // The collector, and the job system's work (recurring jobs, bulk registrations) shared with every other process.
  const work = await startBackgroundWork(true);
  const collector = work.collector!;
  console.log(
    `fleetskew collector ${collector.options.worker}: sweeping every ${config.collector.intervalMs / 1000} s, ${config.collector.concurrency} at a time`,
  );
  const report = setInterval(() => {
    const s = collector.stats;
    console.log(
      `fleetskew collector: ${s.sweeps} sweeps, ${s.errors} failed, ${(s.durationMs / Math.max(1, s.sweeps)).toFixed(0)} ms average`,
    );
  }, 60_000);
  report.unref();
  const stop = async (signal: string) => {
    console.log(`fleetskew collector: ${signal}, finishing the sweeps and jobs in flight`);
    clearInterval(report);
    await work.stop();
    await closeDb();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error) => {
  console.error(
    error instanceof ConfigError || error instanceof MigrationError || error instanceof SecretKeyError
      ? `fleetskew: ${error.message}`
      : error,
  );
  process.exit(1);
});
