import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/**
 * Throwaway Postgres databases for tests and benchmarks: FLEETSKEW_TEST_DATABASE_URL, else
 * DATABASE_URL, else the local server's `test` database names the server to create them on.
 * Free of vitest, so benchmarks (plain tsx) can use it too.
 */
const baseUrl = process.env.FLEETSKEW_TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

/** The database tests are created from: a session there can act on a test database from outside it. */
export const serverUrl = baseUrl;

export const migrationsDir = path.resolve(__dirname, "../../prisma/migrations");

/** The project's migrations by name, oldest first. */
export const projectMigrations = (): string[] =>
  readdirSync(migrationsDir)
    .filter((d) => existsSync(path.join(migrationsDir, d, "migration.sql")))
    .sort();

export type TestDatabase = { url: string; name: string; drop(): Promise<void> };

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Thrown in the quick test set (npm run test:unit), which must not need a database. */
export const QUICK_SET_NEEDS_NO_DATABASE =
  "this test needs Postgres, but it runs in the quick set (npm run test:unit): name the file *.int.test.ts";

export async function createTestDatabase(): Promise<TestDatabase> {
  if (process.env.FLEETSKEW_QUICK_TESTS === "1") throw new Error(QUICK_SET_NEEDS_NO_DATABASE);
  const name = `fleetskew_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  await admin((c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
