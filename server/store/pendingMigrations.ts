import pg from "pg";
import { planMigrations, readMigrations } from "./migrate";

/**
 * The migrations in `dir` that the database at `connectionString` has not applied yet, read without
 * changing anything (a role that may only read `_prisma_migrations` is enough). A database with no
 * migrations table has applied none. Throws MigrationError when the two cannot be reconciled, the
 * same way `migrate` would.
 */
export async function pendingMigrations(connectionString: string, dir: string): Promise<string[]> {
  const files = await readMigrations(dir);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client
      .query(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`)
      .catch((error: { code?: string }) => {
        if (error.code === "42P01") return { rows: [] }; // undefined_table: nothing applied yet
        throw error;
      });
    return planMigrations(files, rows).map((f) => f.name);
  } finally {
    await client.end().catch(() => undefined);
  }
}
