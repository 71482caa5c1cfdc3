import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { closeDb } from "../store/db";
import { migrate } from "../store/migrate";
import { createTestDatabase, migrationsDir, type TestDatabase } from "./postgres";

/**
 * Integration tests run against real Postgres (see ./postgres for which server). Each test file
 * gets a database of its own, dropped afterwards.
 */
export { createTestDatabase, migrationsDir, projectMigrations, serverUrl, type TestDatabase } from "./postgres";

/**
 * Registers hooks giving this test file a fresh, migrated database that the store (getDb) uses.
 * Returns a getter, since the URL exists only once beforeAll has run.
 */
export function useMigratedDatabase(): () => TestDatabase {
  let db: TestDatabase | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    delete process.env.FLEETSKEW_DATABASE_MODE;
  });
  afterAll(async () => {
    await closeDb();
    await db?.drop();
  });
  return () => {
    if (!db) throw new Error("the test database exists only inside tests");
    return db;
  };
}

/**
 * Migrates the database at `url` with the project's migrations that come before `migration` only:
 * the schema as it was, to fill before testing that migration on a populated database.
 */
export async function migrateBefore(url: string, migration: string): Promise<void> {
  const older = await mkdtemp(path.join(os.tmpdir(), "fleetskew-migrations-"));
  try {
    for (const name of await readdir(migrationsDir))
      if (name < migration) await cp(path.join(migrationsDir, name), path.join(older, name), { recursive: true });
    await migrate(url, { dir: older });
  } finally {
    await rm(older, { recursive: true, force: true });
  }
}
