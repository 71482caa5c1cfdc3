import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, migrationsDir, projectMigrations, type TestDatabase } from "../testing/database";
import { checksumOf, migrate } from "./migrate";

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("migrate (real Postgres)", () => {
  let db: TestDatabase;
  let dir: string;

  beforeEach(async () => {
    db = await createTestDatabase();
    // A private copy of the project's migrations, so tests can add and edit files.
    dir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-migrations-"));
    await cp(migrationsDir, dir, { recursive: true });
  });
  afterEach(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("applies the project's migrations and records them the way Prisma does", async () => {
    const result = await migrate(db.url, { dir });
    expect(result.applied).toEqual(projectMigrations());
    const rows = await query<{ migration_name: string; checksum: string; finished_at: Date; applied_steps_count: number; id: string }>(
      db.url,
      `SELECT * FROM "_prisma_migrations"`,
    );
    const sql = await readFile(path.join(dir, "20261122000000_init/migration.sql"), "utf8");
    expect(rows).toHaveLength(projectMigrations().length);
    const init = rows.find((r) => r.migration_name === "20261122000000_init")!;
    expect(init).toMatchObject({ migration_name: "20261122000000_init", checksum: checksumOf(sql), applied_steps_count: 1 });
    expect(init.finished_at).toBeInstanceOf(Date);
    expect(init.id).toMatch(/^[0-9a-f-]{36}$/);
    const tables = await query<{ table_name: string }>(
      db.url,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["User", "Session", "AuditEvent", "Cluster", "LoginThrottle", "LoginFailureWindow"]),
    );
  });

  it("does nothing the second time", async () => {
    await migrate(db.url, { dir });
    const again = await migrate(db.url, { dir });
    expect(again.applied).toEqual([]);
    expect(await query(db.url, `SELECT 1 FROM "_prisma_migrations"`)).toHaveLength(projectMigrations().length);
  });

  it("refuses to start when an applied migration file has changed", async () => {
    await migrate(db.url, { dir });
    const file = path.join(dir, "20261122000000_init/migration.sql");
    await writeFile(file, `${await readFile(file, "utf8")}\n-- edited afterwards\n`);
    await expect(migrate(db.url, { dir })).rejects.toThrow(/20261122000000_init was changed after it was applied/);
  });

  it("rolls back a failing migration completely and records nothing for it", async () => {
    await migrate(db.url, { dir });
    await cp(path.join(dir, "20261122000000_init"), path.join(dir, "20261123000000_broken"), { recursive: true });
    await writeFile(path.join(dir, "20261123000000_broken/migration.sql"), `CREATE TABLE "Half" (id int);\nSELECT * FROM no_such_table;\n`);
    await expect(migrate(db.url, { dir })).rejects.toThrow(/20261123000000_broken failed and was rolled back: .*no_such_table/);
    expect(await query(db.url, `SELECT 1 FROM information_schema.tables WHERE table_name = 'Half'`)).toHaveLength(0);
    expect(await query(db.url, `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '20261123000000_broken'`)).toHaveLength(0);
  });

  it("two concurrent runs end in one applied set", async () => {
    // A second migration makes the window in which the runs could interleave wider.
    await cp(path.join(dir, "20261122000000_init"), path.join(dir, "29991231000000_more"), { recursive: true });
    await writeFile(path.join(dir, "29991231000000_more/migration.sql"), `CREATE TABLE "More" (id int);\nSELECT pg_sleep(0.2);\n`);
    const results = await Promise.all([migrate(db.url, { dir }), migrate(db.url, { dir }), migrate(db.url, { dir })]);
    const appliedEverywhere = results.flatMap((r) => r.applied).sort();
    expect(appliedEverywhere).toEqual([...projectMigrations(), "29991231000000_more"]);
    const rows = await query<{ migration_name: string; n: number }>(
      db.url,
      `SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual([...projectMigrations(), "29991231000000_more"].map((migration_name) => ({ migration_name, n: 1 })));
  });
});
