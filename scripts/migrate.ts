/**
 * `npm run db:migrate`: applies pending migrations to the database, as its owner
 * (FLEETSKEW_MIGRATION_DATABASE_URL, else DATABASE_URL), or to the embedded database, and gives the
 * runtime role of DATABASE_URL its rights.
 */
import path from "node:path";
import { ConfigError, readConfig } from "../server/config/env";
import { checkDatabaseReachable, openDatabase } from "../server/runtime/database";
import { grantRuntimeRole, migrate, MigrationError } from "../server/store/migrate";

async function main() {
  const config = readConfig();
  const database = await openDatabase(config);
  const ownerUrl = database.mode === "postgres" && config.migrationDatabaseUrl ? config.migrationDatabaseUrl : database.url;
  try {
    if (ownerUrl !== database.url) await checkDatabaseReachable(ownerUrl);
    const { applied, total } = await migrate(ownerUrl, {
      dir: path.resolve(__dirname, "../prisma/migrations"),
      log: (line) => console.log(line),
    });
    console.log(`${applied.length} migration(s) applied, ${total - applied.length} already in place (${database.mode} database)`);
    if (ownerUrl !== database.url) {
      const granted = await grantRuntimeRole(ownerUrl, database.url);
      if (granted) console.log(`runtime role ${granted.role}: may read and write the console's tables, and only append to the audit log`);
    }
  } finally {
    await database.embedded?.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof ConfigError || error instanceof MigrationError ? `fleetskew: ${error.message}` : error);
  process.exit(1);
});
