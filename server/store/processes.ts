import { getDb } from "./db";

/**
 * What several processes on one database agree on: the runs of recurring background jobs (for
 * /metrics; the jobs themselves are pg-boss's), each process's heartbeat, and the secret key's fingerprint.
 *
 * Times come from the database's clock, not each process's, so hosts whose clocks disagree still agree
 * on how old a heartbeat is. Columns are `timestamp(3)` in UTC
 * (as Prisma writes them), hence `now() AT TIME ZONE 'UTC'`.
 */
const NOW = `(now() AT TIME ZONE 'UTC')`;

/**
 * Records the end of one run of a recurring job (server/runtime/background.ts) for /metrics: runs
 * counted, failures counted while they follow each other (0 after a success).
 */
export async function recordJobRun(name: string, error: string | null): Promise<void> {
  await getDb().$executeRawUnsafe(
    `INSERT INTO "BackgroundJob" ("name", "lastFinishedAt", "runs", "failures", "lastError")
     VALUES ($1, ${NOW}, 1, CASE WHEN $2::text IS NULL THEN 0 ELSE 1 END, $2::text)
     ON CONFLICT ("name") DO UPDATE
       SET "lastFinishedAt" = ${NOW}, "runs" = "BackgroundJob"."runs" + 1, "lastError" = $2::text,
           "failures" = CASE WHEN $2::text IS NULL THEN 0 ELSE "BackgroundJob"."failures" + 1 END`,
    name,
    error,
  );
}

/** When a background job last finished a run, or null if it never has. */
export async function lastJobFinish(name: string): Promise<Date | null> {
  const row = await getDb().backgroundJob.findUnique({ where: { name }, select: { lastFinishedAt: true } });
  return row?.lastFinishedAt ?? null;
}

export type JobState = {
  name: string;
  runs: number;
  failures: number;
  lastFinishedAt: Date | null;
  lastError: string | null;
};

export async function listJobs(): Promise<JobState[]> {
  const rows = await getDb().backgroundJob.findMany({ orderBy: { name: "asc" } });
  return rows.map((r) => ({
    name: r.name,
    runs: r.runs,
    failures: r.failures,
    lastFinishedAt: r.lastFinishedAt,
    lastError: r.lastError,
  }));
}

export type Heartbeat = {
  process: string;
  role: string;
  host: string;
  pid: number;
  startedAt: Date;
  rssBytes: number;
  cpuSeconds: number;
};

export async function writeHeartbeat(beat: Heartbeat): Promise<void> {
  await getDb().$executeRawUnsafe(
    `INSERT INTO "ProcessHeartbeat" ("process", "role", "host", "pid", "startedAt", "seenAt", "rssBytes", "cpuSeconds")
     VALUES ($1, $2, $3, $4, $5, ${NOW}, $6, $7)
     ON CONFLICT ("process") DO UPDATE SET "seenAt" = ${NOW}, "rssBytes" = EXCLUDED."rssBytes", "cpuSeconds" = EXCLUDED."cpuSeconds"`,
    beat.process,
    beat.role,
    beat.host,
    beat.pid,
    beat.startedAt,
    BigInt(Math.round(beat.rssBytes)),
    beat.cpuSeconds,
  );
}

export type SeenProcess = Heartbeat & { seenAt: Date; ageSeconds: number };

/** Processes seen within `withinMs` (by the database's clock). */
export async function listProcesses(withinMs: number): Promise<SeenProcess[]> {
  const rows = await getDb().$queryRawUnsafe<
    {
      process: string;
      role: string;
      host: string;
      pid: number;
      startedAt: Date;
      seenAt: Date;
      rssBytes: bigint;
      cpuSeconds: number;
      ageSeconds: number;
    }[]
  >(
    `SELECT "process", "role", "host", "pid", "startedAt", "seenAt", "rssBytes", "cpuSeconds",
            EXTRACT(EPOCH FROM (${NOW} - "seenAt"))::float8 AS "ageSeconds"
     FROM "ProcessHeartbeat" WHERE "seenAt" > ${NOW} - $1 * interval '1 millisecond' ORDER BY "process"`,
    withinMs,
  );
  return rows.map((r) => ({ ...r, rssBytes: Number(r.rssBytes) }));
}

/** Forgets processes not seen for `olderThanMs` (stopped replicas), and their collector figures. */
export async function pruneProcesses(olderThanMs: number): Promise<number> {
  const gone = await getDb().$queryRawUnsafe<{ process: string }[]>(
    `DELETE FROM "ProcessHeartbeat" WHERE "seenAt" < ${NOW} - $1 * interval '1 millisecond' RETURNING "process"`,
    olderThanMs,
  );
  if (gone.length) await getDb().collectorStat.deleteMany({ where: { worker: { in: gone.map((g) => g.process) } } });
  return gone.length;
}

export type KeyRecord = { keyId: string; fingerprint: string; recordedBy: string; updatedAt: Date };

export async function readKeyRecord(): Promise<KeyRecord | null> {
  return getDb().secretKeyRecord.findUnique({
    where: { id: 1 },
    select: { keyId: true, fingerprint: true, recordedBy: true, updatedAt: true },
  });
}

/**
 * Records `next` as the deployment's key when the record is still `expected` (null: no record yet);
 * false when another process changed it first (the caller reads it again).
 */
export async function replaceKeyRecord(
  expected: string | null,
  next: { keyId: string; fingerprint: string; recordedBy: string },
): Promise<boolean> {
  if (expected === null) {
    const n = await getDb().$executeRaw`
      INSERT INTO "SecretKeyRecord" ("id", "keyId", "fingerprint", "recordedBy", "updatedAt")
      VALUES (1, ${next.keyId}, ${next.fingerprint}, ${next.recordedBy}, (now() AT TIME ZONE 'UTC'))
      ON CONFLICT ("id") DO NOTHING`;
    return n === 1;
  }
  const n = await getDb().secretKeyRecord.updateMany({ where: { id: 1, fingerprint: expected }, data: next });
  return n.count === 1;
}

export type AttentionFigures = {
  /** How late the most overdue cluster's sweep is (0 when none is overdue): collectors falling behind or gone. */
  sweepLagSeconds: number;
  /** Acknowledgements waiting for an approver, and how long the oldest has waited. */
  pendingAcknowledgements: number;
  oldestPendingAcknowledgementSeconds: number;
};

export async function attentionFigures(): Promise<AttentionFigures> {
  const [row] = await getDb().$queryRawUnsafe<{ lag: number | null; pending: bigint; oldest: number | null }[]>(
    `SELECT
       (SELECT EXTRACT(EPOCH FROM (${NOW} - min("nextSweepAt")))::float8 FROM "SweepSchedule"
          WHERE "nextSweepAt" <= ${NOW} AND ("leaseExpiresAt" IS NULL OR "leaseExpiresAt" < ${NOW})) AS "lag",
       (SELECT count(*) FROM "Acknowledgement" WHERE "status" = 'pending') AS "pending",
       (SELECT EXTRACT(EPOCH FROM (${NOW} - min("requestedAt")))::float8 FROM "Acknowledgement" WHERE "status" = 'pending') AS "oldest"`,
  );
  return {
    sweepLagSeconds: Math.max(0, row?.lag ?? 0),
    pendingAcknowledgements: Number(row?.pending ?? 0),
    oldestPendingAcknowledgementSeconds: Math.max(0, row?.oldest ?? 0),
  };
}
