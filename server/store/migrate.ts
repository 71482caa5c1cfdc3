import { createHash, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/**
 * Applies prisma/migrations/<name>/migration.sql in name order, each in its own transaction, and
 * records them in Prisma's own `_prisma_migrations` table so `prisma migrate status` can read it.
 * Prisma's engine cannot run on every machine we deploy to, so this is the one migrate step.
 */

export type MigrationFile = { name: string; sql: string; checksum: string };
export type MigrateResult = { applied: string[]; total: number };

export class MigrationError extends Error {
  override name = "MigrationError";
}

// Any fixed 64-bit key works; it only has to be the same in every Fleetskew process.
const LOCK_KEY = 7_220_414_201n;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export const defaultMigrationsDir = () => path.resolve(process.cwd(), "prisma/migrations");

export function checksumOf(sql: string): string {
  return createHash("sha256").update(sql, "utf8").digest("hex");
}

/** Prisma accepts a script whose only change is its line endings (LF vs CRLF); so do we. */
export function scriptMatchesChecksum(sql: string, checksum: string): boolean {
  const variants = [sql, sql.replace(/\r\n/g, "\n"), sql.replace(/(?<!\r)\n/g, "\r\n")];
  return variants.some((v) => checksumOf(v) === checksum);
}

export async function readMigrations(dir: string = defaultMigrationsDir()): Promise<MigrationFile[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(path.join(dir, name, "migration.sql"), "utf8").catch(() => {
        throw new MigrationError(`migration ${name} has no migration.sql`);
      });
      return { name, sql, checksum: checksumOf(sql) };
    }),
  );
}

type AppliedRow = { migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null };

/** Compares what the database has applied with the files; throws when they cannot be reconciled. */
export function planMigrations(files: MigrationFile[], applied: AppliedRow[]): MigrationFile[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  for (const row of applied) {
    if (row.rolled_back_at) continue;
    if (!row.finished_at) {
      throw new MigrationError(`migration ${row.migration_name} started but never finished; resolve it by hand before starting Fleetskew`);
    }
    const file = byName.get(row.migration_name);
    if (!file) {
      throw new MigrationError(
        `the database has migration ${row.migration_name} applied, which this version of Fleetskew does not have; run a version that includes it`,
      );
    }
    if (!scriptMatchesChecksum(file.sql, row.checksum)) {
      throw new MigrationError(
        `migration ${row.migration_name} was changed after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ${file.checksum.slice(0, 12)}… on disk); restore the original file and put the change in a new migration`,
      );
    }
  }
  const done = new Set(applied.filter((r) => r.finished_at && !r.rolled_back_at).map((r) => r.migration_name));
  return files.filter((f) => !done.has(f.name));
}

/** A schema change refused for lack of rights: the URL is a runtime role's, not the owner's. */
const refusedByRole =
  (url: string) =>
  (error: unknown): never => {
    throw new MigrationError(
      `the database role ${roleOfUrl(url) ?? "(default)"} may not change the schema (${(error as Error).message}); set FLEETSKEW_MIGRATION_DATABASE_URL to the database owner's URL`,
    );
  };

/**
 * Migrates the database at `connectionString`. Safe when several processes start at once: a
 * session-level advisory lock serialises them, and each re-reads what is applied after locking.
 */
export async function migrate(
  connectionString: string,
  options: { dir?: string; log?: (line: string) => void } = {},
): Promise<MigrateResult> {
  const files = await readMigrations(options.dir);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY.toString()]);
    try {
      // A runtime role may not create tables; the history exists once the owner has migrated.
      const { rows: history } = await client.query<{ table: string | null }>(`SELECT to_regclass('"_prisma_migrations"')::text AS table`);
      if (!history[0]?.table) await client.query(CREATE_TABLE).catch(refusedByRole(connectionString));
      const { rows } = await client.query<AppliedRow>(
        `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
      );
      const pending = planMigrations(files, rows);
      for (const file of pending) {
        const startedAt = new Date();
        await client.query("BEGIN");
        try {
          await client.query(file.sql);
          await client.query(
            `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
             VALUES ($1, $2, $3, $4, now(), 1)`,
            [randomUUID(), file.checksum, file.name, startedAt],
          );
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK").catch(() => undefined);
          if ((error as { code?: string }).code === "42501") refusedByRole(connectionString)(error);
          throw new MigrationError(`migration ${file.name} failed and was rolled back: ${(error as Error).message}`);
        }
        options.log?.(`applied migration ${file.name}`);
      }
      return { applied: pending.map((f) => f.name), total: files.length };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY.toString()]).catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The role a connection URL logs in as (as Postgres would read the URL's user). */
export function roleOfUrl(url: string): string | null {
  try {
    const user = new URL(url).username;
    return user ? decodeURIComponent(user) : null;
  } catch {
    return null;
  }
}

/**
 * Gives the console's runtime role what it needs and no more, run as the owner after migrating:
 * reading and writing its tables, but only INSERT and SELECT on the audit log (no UPDATE, DELETE,
 * TRUNCATE), and only SELECT on the migration history. Not owning the tables, it cannot ALTER them
 * or drop the audit log's trigger. Safe to repeat; run after every migration so new tables are covered.
 */
export async function grantRuntimeRole(ownerUrl: string, runtimeUrl: string): Promise<{ role: string; schema: string } | null> {
  const client = new pg.Client({ connectionString: ownerUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ owner: string; schema: string }>("SELECT current_user AS owner, current_schema() AS schema");
    const { owner, schema } = rows[0]!;
    const runtime = roleOfUrl(runtimeUrl);
    if (!runtime || runtime === owner) return null;
    const role = client.escapeIdentifier(runtime);
    const s = client.escapeIdentifier(schema);
    const audit = `${s}."AuditEvent"`;
    await client.query("BEGIN");
    try {
      // Processes starting together grant at once too: concurrent GRANTs on one table fail with
      // "tuple concurrently updated", so they take the migrations' lock, until this transaction ends.
      await client.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY.toString()]);
      await client.query(`GRANT USAGE ON SCHEMA ${s} TO ${role}`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${role}`);
      await client.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${s} TO ${role}`);
      await client.query(`REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ${audit} FROM ${role}`);
      await client.query(`REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ${s}."_prisma_migrations" FROM ${role}`);
      // The job system's schema (pg-boss, created by a migration): its rows, not its tables. Queues are
      // partitions the owner creates in migrations; the runtime role only enqueues, fetches and finishes jobs.
      const { rows: jobSchema } = await client.query<{ present: boolean }>("SELECT to_regnamespace('pgboss') IS NOT NULL AS present");
      if (jobSchema[0]?.present) {
        await client.query(`GRANT USAGE ON SCHEMA pgboss TO ${role}`);
        await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA pgboss TO ${role}`);
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw new MigrationError(`could not grant the runtime role ${runtime} its rights: ${(error as Error).message}`);
    }
    return { role: runtime, schema };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * What the role behind `url` could do to the audit log besides appending: alter it or its trigger
 * (it owns the table, is a member of its owner, or is a superuser), or change rows (the trigger still
 * refuses those, but only while nobody drops it).
 */
export async function auditLogExposure(url: string): Promise<{ role: string; canAlter: boolean; canModify: boolean }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ role: string; can_alter: boolean; can_modify: boolean }>(
      `SELECT current_user AS role,
              (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR pg_has_role(current_user, c.relowner, 'USAGE') AS can_alter,
              has_table_privilege(c.oid, 'UPDATE') OR has_table_privilege(c.oid, 'DELETE') OR has_table_privilege(c.oid, 'TRUNCATE') AS can_modify
       FROM pg_class c WHERE c.oid = to_regclass('"AuditEvent"')`,
    );
    const row = rows[0];
    return { role: row?.role ?? "unknown", canAlter: row?.can_alter ?? true, canModify: row?.can_modify ?? true };
  } finally {
    await client.end().catch(() => undefined);
  }
}
