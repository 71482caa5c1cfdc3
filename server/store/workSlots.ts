import { randomUUID } from "node:crypto";
import { getDb } from "./db";

/**
 * Expensive work running now, counted across every web process on the database (the WorkSlot
 * table): a person cannot multiply a limit by the number of replicas. A slot is taken in one short
 * transaction under a lock per kind of work, so two processes never both take the last one; it is
 * given back when the work ends, and lives only as long as its lease, which its process renews, so
 * the slots of a process that was killed free themselves.
 *
 * Times are the database's, so replicas whose clocks disagree still agree on a lease.
 */
const NOW = `(now() AT TIME ZONE 'UTC')`;

export type RunningWork = { person: number; total: number };

/**
 * Takes a slot of `kind` for `person` when `admit` agrees, given what runs now everywhere; returns
 * the slot's id, or null with the counts that refused it.
 */
export async function takeWorkSlot(
  input: { kind: string; person: string; process: string; leaseMs: number },
  admit: (running: RunningWork) => boolean,
): Promise<{ id: string | null; running: RunningWork }> {
  return getDb().$transaction(async (tx) => {
    // One lock per kind of work, held to the end of this transaction (a few milliseconds).
    await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('fleetskew-work:' || $1))`, input.kind);
    const [counts] = await tx.$queryRawUnsafe<{ person: number; total: number }[]>(
      `SELECT count(*) FILTER (WHERE "person" = $2)::int AS "person", count(*)::int AS "total"
         FROM "WorkSlot" WHERE "kind" = $1 AND "expiresAt" > ${NOW}`,
      input.kind,
      input.person,
    );
    const running = { person: counts?.person ?? 0, total: counts?.total ?? 0 };
    if (!admit(running)) return { id: null, running };
    const id = randomUUID();
    await tx.$executeRawUnsafe(
      `INSERT INTO "WorkSlot" ("id", "kind", "person", "process", "takenAt", "expiresAt")
       VALUES ($1::uuid, $2, $3, $4, ${NOW}, ${NOW} + make_interval(secs => $5::double precision))`,
      id,
      input.kind,
      input.person,
      input.process,
      input.leaseMs / 1000,
    );
    return { id, running };
  });
}

export async function giveBackWorkSlot(id: string): Promise<void> {
  await getDb().$executeRawUnsafe(`DELETE FROM "WorkSlot" WHERE "id" = $1::uuid`, id);
}

/** Extends the leases of the slots a process still holds; drops every slot whose lease ran out. */
export async function renewWorkSlots(ids: readonly string[], leaseMs: number): Promise<void> {
  if (ids.length)
    await getDb().$executeRawUnsafe(
      `UPDATE "WorkSlot" SET "expiresAt" = ${NOW} + make_interval(secs => $2::double precision) WHERE "id" = ANY($1::uuid[])`,
      [...ids],
      leaseMs / 1000,
    );
  await getDb().$executeRawUnsafe(`DELETE FROM "WorkSlot" WHERE "expiresAt" <= ${NOW}`);
}

/** Work of `kind` running now across all processes, for tests and /metrics-like reading. */
export async function runningWork(kind: string, person?: string): Promise<number> {
  const [row] = await getDb().$queryRawUnsafe<{ n: number }[]>(
    `SELECT count(*)::int AS n FROM "WorkSlot" WHERE "kind" = $1 AND "expiresAt" > ${NOW} AND ($2::text IS NULL OR "person" = $2::text)`,
    kind,
    person ?? null,
  );
  return row?.n ?? 0;
}
