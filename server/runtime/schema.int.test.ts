import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrationsDir, projectMigrations, createTestDatabase, type TestDatabase } from "../testing/postgres";
import { migrate, MigrationError } from "../store/migrate";
import { prepareSchema } from "./schema";

describe("prepareSchema (real Postgres)", () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await createTestDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it("migrates by default", async () => {
    const result = await prepareSchema(db.url, { dir: migrationsDir, migrate: true });
    expect(result).toEqual({ applied: projectMigrations(), total: projectMigrations().length, waited: false });
  });

  it("with migrations off, waits for the migration step and then goes on", async () => {
    const lines: string[] = [];
    const waiting = prepareSchema(db.url, { dir: migrationsDir, migrate: false, pollMs: 50, waitMs: 20_000, log: (l) => lines.push(l) });
    await new Promise((r) => setTimeout(r, 300));
    expect(lines).toEqual([`waiting for the migration step to apply ${projectMigrations().join(", ")} (FLEETSKEW_MIGRATE=0)`]);
    await migrate(db.url, { dir: migrationsDir });
    expect(await waiting).toEqual({ applied: [], total: projectMigrations().length, waited: true });
  });

  it("with migrations off, gives up with a message naming what is missing", async () => {
    const attempt = prepareSchema(db.url, { dir: migrationsDir, migrate: false, pollMs: 50, waitMs: 200 });
    await expect(attempt).rejects.toThrow(MigrationError);
    await expect(attempt).rejects.toThrow(/the database still lacks \d+ migration\(s\) \(20261122000000_init, .*run the migration step/);
  });

  it("with migrations off and the schema current, answers at once without changing anything", async () => {
    await migrate(db.url, { dir: migrationsDir });
    expect(await prepareSchema(db.url, { dir: migrationsDir, migrate: false })).toEqual({
      applied: [],
      total: projectMigrations().length,
      waited: false,
    });
  });
});
