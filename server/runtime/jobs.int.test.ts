import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { closeDb } from "../store/db";
import { grantRuntimeRole, migrate } from "../store/migrate";
import { createTestDatabase, migrationsDir } from "../testing/postgres";
import { registrationItemJob } from "../clusters/bulkRunner";
import { backgroundJobs } from "./background";
import { defineJob, JobSystem } from "./jobs";

/**
 * The console runs as a role that may not change the schema: the job system's schema and queues come
 * from a migration the owner applies, and the runtime role may still enqueue, fetch, renew and finish
 * jobs, and do pg-boss's maintenance.
 */
const role = `fleetskew_jobs_${randomBytes(4).toString("hex")}`;
const base = process.env.FLEETSKEW_TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
// Undone last first: the job systems, then the database, then the role its grants name.
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const asOwner = async (url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

describe("the job system, as the runtime role", () => {
  it("runs jobs of the queues the migration made, and may not make a queue of its own", async () => {
    await asOwner(base, `CREATE ROLE "${role}" LOGIN`);
    cleanups.push(() => asOwner(base, `DROP ROLE IF EXISTS "${role}"`));
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    cleanups.push(() => closeDb());
    await migrate(db.url, { dir: migrationsDir });
    // Every job the code defines has its queue from a migration: the runtime role could not make it.
    const queues = new pg.Client({ connectionString: db.url });
    await queues.connect();
    const made = (await queues.query<{ name: string }>("SELECT name FROM pgboss.queue")).rows.map((r) => r.name);
    await queues.end();
    expect([...backgroundJobs().map((j) => j.name), registrationItemJob.name].filter((name) => !made.includes(name))).toEqual([]);
    const runtime = new URL(db.url);
    runtime.username = role;
    expect(await grantRuntimeRole(db.url, runtime.toString())).toMatchObject({ role });
    process.env.DATABASE_URL = runtime.toString();

    let runs = 0;
    // A queue the migration created, with this definition's options.
    const retention = defineJob("history-retention", z.object({ before: z.string() }), async () => void runs++, {
      policy: "stately",
      leaseMs: 60_000,
      retryLimit: 0,
    });
    const system = new JobSystem(true, () => undefined);
    cleanups.push(() => system.stop());
    await system.work([]);
    await system.enqueue(retention, { before: "2024-01-01" });
    expect(await system.drain(retention)).toBe(1);
    expect(runs).toBe(1);
    await system.maintain();

    // A job type without a migration: its queue would be a table, which only the owner may create.
    const unmigrated = defineJob("not-in-a-migration", z.object({}), async () => undefined, { leaseMs: 1_000 });
    const other = new JobSystem(false, () => undefined);
    cleanups.push(() => other.stop());
    await expect(other.work([unmigrated])).rejects.toMatchObject({ code: "42501" });
  });
});
