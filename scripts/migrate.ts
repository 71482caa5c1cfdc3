/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database. */
import path from "node:path";
import { ConfigError, readConfig } from "../server/config/env";
import { openDatabase } from "../server/runtime/database";
import { migrate, MigrationError } from "../server/store/migrate";

async function main() {
  const config = readConfig();
  const database = await openDatabase(config);
  try {
    const { applied, total } = await migrate(database.url, {
      dir: path.resolve(__dirname, "../prisma/migrations"),
      log: (line) => console.log(line),
    });
    console.log(`${applied.length} migration(s) applied, ${total - applied.length} already in place (${database.mode} database)`);
  } finally {
    await database.embedded?.stop();
  }
}

main().catch((error) => {
  console.error(error instanceof ConfigError || error instanceof MigrationError ? `fleetskew: ${error.message}` : error);
  process.exit(1);
});
