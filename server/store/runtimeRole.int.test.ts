import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, migrationsDir } from "../testing/postgres";
import { auditLogExposure, grantRuntimeRole, migrate } from "./migrate";

/**
 * The audit log is append-only for the role the console runs as: the owner migrates and grants it
 * INSERT and SELECT only; it cannot change, remove or alter the log, whatever it sends.
 */
const role = `fleetskew_rt_${randomBytes(4).toString("hex")}`;
const base = process.env.FLEETSKEW_TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function as(url: string, work: (client: pg.Client) => Promise<void>) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

describe("the runtime role", () => {
  it("may append to and read the audit log, and nothing more; the owner is warned about", async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    await as(base, (c) => c.query(`CREATE ROLE "${role}" LOGIN`).then(() => undefined));
    cleanups.push(() => as(base, (c) => c.query(`DROP ROLE IF EXISTS "${role}"`).then(() => undefined)));
    const runtime = new URL(db.url);
    runtime.username = role;

    // Before the owner migrated, the runtime role cannot, and says what to set.
    await expect(migrate(runtime.toString(), { dir: migrationsDir })).rejects.toThrow(
      new RegExp(`the database role ${role} may not change the schema .*; set FLEETSKEW_MIGRATION_DATABASE_URL`),
    );
    await migrate(db.url, { dir: migrationsDir });
    expect(await grantRuntimeRole(db.url, runtime.toString())).toEqual({ role, schema: "public" });
    // Nothing pending: the runtime role's own migrate step passes.
    expect((await migrate(runtime.toString(), { dir: migrationsDir })).applied).toEqual([]);

    expect(await auditLogExposure(db.url)).toMatchObject({ canAlter: true });
    expect(await auditLogExposure(runtime.toString())).toEqual({ role, canAlter: false, canModify: false });

    await as(runtime.toString(), async (client) => {
      await client.query(`INSERT INTO "AuditEvent" ("action") VALUES ('test.append')`);
      expect((await client.query(`SELECT count(*)::int AS n FROM "AuditEvent"`)).rows[0].n).toBe(1);
      await client.query(`INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES ('x', '1', now())`);
      await client.query(`UPDATE "Setting" SET "value" = '2'`);
      for (const statement of [
        `UPDATE "AuditEvent" SET "action" = 'rewritten'`,
        `DELETE FROM "AuditEvent"`,
        `TRUNCATE "AuditEvent"`,
        `ALTER TABLE "AuditEvent" DISABLE TRIGGER ALL`,
        `DROP TRIGGER "AuditEvent_append_only" ON "AuditEvent"`,
        `DELETE FROM "_prisma_migrations"`,
        `CREATE TABLE "Forged" (x int)`,
      ])
        await expect(client.query(statement), statement).rejects.toMatchObject({ code: "42501" });
    });
  });

  it("is granted by several processes starting at once without one failing", async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    const other = `${role}_b`;
    await as(base, (c) => c.query(`CREATE ROLE "${other}" LOGIN`).then(() => undefined));
    cleanups.push(() => as(base, (c) => c.query(`DROP ROLE IF EXISTS "${other}"`).then(() => undefined)));
    const runtime = new URL(db.url);
    runtime.username = other;
    await migrate(db.url, { dir: migrationsDir });
    // Concurrent GRANTs on the same tables would fail with "tuple concurrently updated".
    const results = await Promise.all(Array.from({ length: 6 }, () => grantRuntimeRole(db.url, runtime.toString())));
    expect(results).toEqual(Array.from({ length: 6 }, () => ({ role: other, schema: "public" })));
  });
});
