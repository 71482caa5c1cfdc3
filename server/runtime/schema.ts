import { migrate, MigrationError, readMigrations } from "../store/migrate";
import { pendingMigrations } from "../store/pendingMigrations";

export type SchemaOptions = {
  /** prisma/migrations of this build. */
  dir: string;
  /**
   * Apply pending migrations (the default), or only wait until someone else has: on a cluster one
   * migration step per rollout applies them with the owner role, and the replicas, which connect
   * with a role that may not change the schema, wait for it (FLEETSKEW_MIGRATE=0).
   */
  migrate: boolean;
  log?: (line: string) => void;
  /** How long to wait for the migration step before giving up. */
  waitMs?: number;
  pollMs?: number;
};

export type SchemaResult = { applied: string[]; total: number; waited: boolean };

/** Brings the database to this build's schema, or waits until the migration step has. */
export async function prepareSchema(url: string, options: SchemaOptions): Promise<SchemaResult> {
  if (options.migrate) {
    const { applied, total } = await migrate(url, { dir: options.dir, log: options.log });
    return { applied, total, waited: false };
  }
  const waitMs = options.waitMs ?? 10 * 60_000;
  const pollMs = options.pollMs ?? 2_000;
  const deadline = Date.now() + waitMs;
  let announced = false;
  for (;;) {
    const pending = await pendingMigrations(url, options.dir);
    if (pending.length === 0) return { applied: [], total: (await readMigrations(options.dir)).length, waited: announced };
    if (Date.now() >= deadline) {
      throw new MigrationError(
        `the database still lacks ${pending.length} migration(s) (${pending.join(", ")}) after ${Math.round(waitMs / 1000)} s; ` +
          "run the migration step (npm run db:migrate with the owner role), or unset FLEETSKEW_MIGRATE to let this process migrate",
      );
    }
    if (!announced) {
      options.log?.(`waiting for the migration step to apply ${pending.join(", ")} (FLEETSKEW_MIGRATE=0)`);
      announced = true;
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
