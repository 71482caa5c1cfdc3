import { Prisma } from "./generated/prisma/client";
import { getDb } from "./db";
import { shardOf } from "./shards";

/**
 * The collector's schedule. A worker claims due clusters by taking a lease in one UPDATE over rows
 * locked with FOR UPDATE SKIP LOCKED: two workers never claim the same cluster, and a worker that
 * dies leaves a lease that simply expires. Results are written only while the lease is still held.
 */
export type ClaimedCluster = {
  clusterId: string;
  name: string;
  failures: number;
  sealedCredentials: Buffer;
  /** A cluster reached through an ACM hub's proxy: which hub, and how many of its clusters one process sweeps at once. */
  hubId: string | null;
  hubConcurrency: number | null;
  /** How the hub's proxy is passed: the hub's impersonated identity, or the cluster's ManagedServiceAccount token. */
  hubAccess: "impersonation" | "managed-service-account" | null;
};

/** Gives every swept (not offline) cluster a schedule row; new clusters are due at once. */
export async function ensureSchedules(): Promise<number> {
  return getDb().$executeRaw`
    INSERT INTO "SweepSchedule" ("clusterId")
    SELECT c."id" FROM "Cluster" c
    WHERE NOT c."offline" AND NOT EXISTS (SELECT 1 FROM "SweepSchedule" s WHERE s."clusterId" = c."id")
    ON CONFLICT DO NOTHING`;
}

/**
 * Claims up to `limit` due clusters for `worker`: of its shards only (server/store/shards.ts), or of
 * the whole fleet when `shards` is null (one collector alone, tests, the benchmark).
 */
export async function claimDueClusters(
  worker: string,
  limit: number,
  leaseMs: number,
  now = new Date(),
  shards: readonly string[] | null = null,
): Promise<ClaimedCluster[]> {
  const until = new Date(now.getTime() + leaseMs);
  if (shards && shards.length === 0) return [];
  const inShards = shards ? Prisma.sql`AND ${Prisma.raw(shardOf("cc"))} = ANY(${[...shards]}::text[])` : Prisma.empty;
  // Clusters an ACM hub reports lease-expired or removed are not contacted (docs/acm.md §6).
  const rows = await getDb().$queryRaw<(Omit<ClaimedCluster, "sealedCredentials"> & { sealedCredentials: Uint8Array })[]>`
    UPDATE "SweepSchedule" s
    SET "leaseOwner" = ${worker}, "leaseExpiresAt" = ${until}
    FROM "Cluster" c
    LEFT JOIN "Hub" h ON h."id" = c."hubId"
    WHERE c."id" = s."clusterId" AND s."clusterId" IN (
      SELECT ss."clusterId" FROM "SweepSchedule" ss JOIN "Cluster" cc ON cc."id" = ss."clusterId"
      WHERE ss."nextSweepAt" <= ${now} AND (ss."leaseExpiresAt" IS NULL OR ss."leaseExpiresAt" < ${now})
        AND (cc."hubState" IS NULL OR cc."hubState" = 'available') ${inShards}
      ORDER BY ss."nextSweepAt"
      LIMIT ${limit}
      FOR UPDATE OF ss SKIP LOCKED)
    RETURNING s."clusterId" AS "clusterId", c."name" AS "name", s."failures" AS "failures",
              c."encryptedCredentials" AS "sealedCredentials", c."hubId" AS "hubId", h."concurrency" AS "hubConcurrency",
              h."access" AS "hubAccess"`;
  return rows.map((r) => ({ ...r, sealedCredentials: Buffer.from(r.sealedCredentials) }));
}

/**
 * How many clusters of `shards` (null: the whole fleet) are read directly, not through a hub's
 * cluster-proxy: those a collector holding these shards could keep watched.
 */
export async function countDirectClusters(shards: readonly string[] | null): Promise<number> {
  if (shards && shards.length === 0) return 0;
  const inShards = shards ? Prisma.sql`AND ${Prisma.raw(shardOf("c"))} = ANY(${[...shards]}::text[])` : Prisma.empty;
  const [row] = await getDb().$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM "Cluster" c WHERE c."hubId" IS NULL AND NOT c."offline" ${inShards}`;
  return row?.n ?? 0;
}

/** Makes every cluster due now (an admin's "sweep now", tests). */
export async function makeAllDue(now = new Date()): Promise<void> {
  await getDb().sweepSchedule.updateMany({ data: { nextSweepAt: now } });
}

export async function makeDue(clusterName: string, now = new Date()): Promise<void> {
  await getDb().sweepSchedule.updateMany({ where: { cluster: { name: clusterName } }, data: { nextSweepAt: now } });
}

export type WorkerStats = { worker: string; sweeps: number; errors: number; durationMs: number; updatedAt: string };

export async function addWorkerStats(worker: string, delta: { sweeps: number; errors: number; durationMs: number }): Promise<void> {
  await getDb().collectorStat.upsert({
    where: { worker },
    create: { worker, sweeps: delta.sweeps, errors: delta.errors, durationMs: BigInt(Math.round(delta.durationMs)) },
    update: {
      sweeps: { increment: delta.sweeps },
      errors: { increment: delta.errors },
      durationMs: { increment: BigInt(Math.round(delta.durationMs)) },
    },
  });
}

export async function listWorkerStats(): Promise<WorkerStats[]> {
  const rows = await getDb().collectorStat.findMany({ orderBy: { worker: "asc" } });
  return rows.map((r) => ({
    worker: r.worker,
    sweeps: r.sweeps,
    errors: r.errors,
    durationMs: Number(r.durationMs),
    updatedAt: r.updatedAt.toISOString(),
  }));
}

export type ScheduleSummary = { due: number; leased: number; failing: number; lastDurations: number[] };

export async function scheduleSummary(now = new Date()): Promise<ScheduleSummary> {
  const [due, leased, failing, recent] = await Promise.all([
    getDb().sweepSchedule.count({ where: { nextSweepAt: { lte: now } } }),
    getDb().sweepSchedule.count({ where: { leaseExpiresAt: { gt: now } } }),
    getDb().sweepSchedule.count({ where: { failures: { gt: 0 } } }),
    getDb().sweepSchedule.findMany({ where: { lastDurationMs: { not: null } }, select: { lastDurationMs: true } }),
  ]);
  return { due, leased, failing, lastDurations: recent.map((r) => r.lastDurationMs!) };
}
