/**
 * `npm run collector`: an extra collector process. Workers share the fleet through leases in
 * Postgres, so start as many as the fleet needs; each sweeps only clusters nobody else holds.
 */
import path from "node:path";
import { Collector, defaultCollectorOptions, workerName } from "../server/collector/collector";
import { ConfigError, readConfig } from "../server/config/env";
import { loadSkewLimits } from "../server/fleet/skewLimits";
import { checkDatabaseReachable } from "../server/runtime/database";
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
  const limits = await loadSkewLimits();
  const collector = new Collector(defaultCollectorOptions(config, workerName("collector"), () => limits.current()));
  collector.start();
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
    console.log(`fleetskew collector: ${signal}, finishing the sweeps in flight`);
    clearInterval(report);
    await collector.stop();
    await closeDb();
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((error) => {
  console.error(error instanceof ConfigError || error instanceof MigrationError ? `fleetskew: ${error.message}` : error);
  process.exit(1);
});
