import { randomBytes } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { closeDb } from "../store/db";
import { migrate } from "../store/migrate";

/**
 * Integration tests run against real Postgres: FLEETSKEW_TEST_DATABASE_URL, else DATABASE_URL, else
 * the local server's `test` database. Each test file gets a database of its own, dropped afterwards.
 */
const baseUrl = process.env.FLEETSKEW_TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

export const migrationsDir = path.resolve(__dirname, "../../prisma/migrations");

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

export async function createTestDatabase(): Promise<TestDatabase> {
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
