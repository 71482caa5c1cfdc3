import { auditRow, type AuditInput } from "./audit";
import { clusterRow, type NewCluster } from "./clusters";
import { getDb, type SqlExecutor } from "./db";

/**
 * Bulk registrations: a job and its items (one per kubeconfig context). The job, every item, the
 * audit event and the background work for each item (a job of the job system, enqueued through the
 * same transaction) are created at once. The job system hands each item to one process at a time; an
 * attempt takes the item (`heldBy`), and only the attempt holding it records its end, so an attempt
 * the job system gave up on as expired cannot write over its retry.
 */
export type RegistrationItemStatus = "pending" | "testing" | "registered" | "duplicate" | "failed";
export const FINISHED_STATUSES: readonly RegistrationItemStatus[] = ["registered", "duplicate", "failed"];

export type NewRegistrationItem = { id: string; context: string; name: string; apiUrl: string; sealedCredentials: Buffer };

export type RegistrationItemRecord = {
  position: number;
  context: string;
  name: string;
  apiUrl: string;
  status: RegistrationItemStatus;
  reason: string | null;
  clusterName: string | null;
  openshiftVersion: string | null;
  attempts: number;
  finishedAt: string | null;
};

export type RegistrationJobRecord = {
  id: string;
  createdBy: string;
  createdAt: string;
  finishedAt: string | null;
  labels: Record<string, string>;
  items: RegistrationItemRecord[];
};

/** An item a worker holds: what it needs to test and register it, the credentials still sealed. */
export type ClaimedRegistrationItem = {
  id: string;
  jobId: string;
  position: number;
  context: string;
  name: string;
  apiUrl: string;
  sealedCredentials: Buffer | null;
  attempts: number;
  createdBy: string;
  createdByRole: string;
  labels: Record<string, string>;
};

type Actor = Omit<AuditInput, "action" | "targetType" | "targetId">;

export async function insertRegistrationJob(
  job: { id: string; createdBy: string; createdByRole: string; labels: Record<string, string>; items: NewRegistrationItem[] },
  actor: Actor,
  /** Enqueues each item's background work in the same transaction. */
  enqueueItems: (db: SqlExecutor, itemIds: string[]) => Promise<void>,
): Promise<void> {
  await getDb().$transaction(async (tx) => {
    await tx.registrationJob.create({
      data: { id: job.id, createdBy: job.createdBy, createdByRole: job.createdByRole, labels: job.labels },
    });
    await tx.registrationJobItem.createMany({
      data: job.items.map((item, position) => ({
        id: item.id,
        jobId: job.id,
        position,
        context: item.context,
        name: item.name,
        apiUrl: item.apiUrl,
        sealedCredentials: new Uint8Array(item.sealedCredentials),
      })),
    });
    await tx.auditEvent.create({
      data: auditRow({
        ...actor,
        action: "cluster.bulk-register",
        targetType: "registration-job",
        targetId: job.id,
        summary: `started registering ${job.items.length} cluster(s) from a kubeconfig`,
        details: { ...actor.details, clusters: job.items.map((i) => ({ context: i.context, name: i.name, apiUrl: i.apiUrl })) },
      }),
    });
    await enqueueItems(
      { executeSql: async (text, values) => ({ rows: await tx.$queryRawUnsafe<Record<string, unknown>[]>(text, ...(values ?? [])) }) },
      job.items.map((i) => i.id),
    );
  });
}

/**
 * Takes an item for one attempt of its background work: marks it being tested, held by `holder`, and
 * counts the attempt. Null when the item is finished (a retry of work already done) or gone.
 */
export async function takeRegistrationItem(itemId: string, holder: string): Promise<ClaimedRegistrationItem | null> {
  const rows = await getDb().$queryRaw<(Omit<ClaimedRegistrationItem, "sealedCredentials"> & { sealedCredentials: Uint8Array | null })[]>`
    UPDATE "RegistrationJobItem" i
    SET "status" = 'testing', "heldBy" = ${holder}, "attempts" = i."attempts" + 1
    FROM "RegistrationJob" j
    WHERE j."id" = i."jobId" AND i."id" = ${itemId}::uuid AND i."status" IN ('pending', 'testing')
    RETURNING i."id" AS "id", i."jobId" AS "jobId", i."position" AS "position", i."context" AS "context", i."name" AS "name",
              i."apiUrl" AS "apiUrl", i."sealedCredentials" AS "sealedCredentials", i."attempts" AS "attempts",
              j."createdBy" AS "createdBy", j."createdByRole" AS "createdByRole", j."labels" AS "labels"`;
  const row = rows[0];
  if (!row) return null;
  return { ...row, sealedCredentials: row.sealedCredentials ? Buffer.from(row.sealedCredentials) : null };
}

export type ItemOutcome = {
  status: "duplicate" | "failed";
  reason: string;
  clusterName?: string | null;
  openshiftVersion?: string | null;
};

/** Records an item's end while `holder` still holds it; false when a later attempt took it. The credentials are dropped. */
export async function finishRegistrationItem(itemId: string, holder: string, outcome: ItemOutcome, now = new Date()): Promise<boolean> {
  const { count } = await getDb().registrationJobItem.updateMany({
    where: { id: itemId, heldBy: holder, status: "testing" },
    data: {
      status: outcome.status,
      reason: outcome.reason,
      clusterName: outcome.clusterName ?? null,
      openshiftVersion: outcome.openshiftVersion ?? null,
      sealedCredentials: null,
      heldBy: null,
      finishedAt: now,
    },
  });
  return count === 1;
}

export type RegisterOutcome =
  { status: "registered" } | { status: "duplicate"; clusterName: string; reason: string } | { status: "taken-over" };

/**
 * Registers the cluster an item tested, in one transaction with its audit event and the item's end.
 * Clusters that are the same as one already registered (same name, same API URL, or the same
 * ClusterVersion spec.clusterID) are reported as duplicates instead. An advisory lock on the
 * cluster's identity serialises this check across processes, so two contexts that reach the same
 * cluster (an admin and a reader context, say) never both register it.
 */
export async function registerItemCluster(
  item: { id: string; holder: string; openshiftVersion: string | null },
  cluster: NewCluster & { openshiftClusterId: string | null },
  audit: AuditInput,
  now = new Date(),
): Promise<RegisterOutcome> {
  return getDb().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`fleetskew-registration:${cluster.openshiftClusterId ?? cluster.apiUrl}`}))`;
    const held = await tx.$queryRaw<{ id: string }[]>`
      SELECT "id" FROM "RegistrationJobItem" WHERE "id" = ${item.id}::uuid AND "heldBy" = ${item.holder} AND "status" = 'testing' FOR UPDATE`;
    if (held.length === 0) return { status: "taken-over" as const };
    const same = await tx.cluster.findFirst({
      where: {
        OR: [
          { name: cluster.name },
          { apiUrl: cluster.apiUrl },
          ...(cluster.openshiftClusterId ? [{ openshiftClusterId: cluster.openshiftClusterId }] : []),
        ],
      },
      select: { name: true, apiUrl: true, openshiftClusterId: true },
      orderBy: { createdAt: "asc" },
    });
    let outcome: RegisterOutcome;
    if (same) {
      const reason =
        same.name === cluster.name
          ? `a cluster named ${same.name} is already registered`
          : same.apiUrl === cluster.apiUrl
            ? `already registered as ${same.name} (same API URL)`
            : `already registered as ${same.name} (same ClusterVersion spec.clusterID ${cluster.openshiftClusterId})`;
      outcome = { status: "duplicate", clusterName: same.name, reason };
    } else {
      await tx.cluster.create({ data: clusterRow(cluster), select: { id: true } });
      await tx.auditEvent.create({ data: auditRow(audit) });
      outcome = { status: "registered" };
    }
    await tx.registrationJobItem.update({
      where: { id: item.id },
      data: {
        status: outcome.status,
        reason: outcome.status === "duplicate" ? outcome.reason : null,
        clusterName: outcome.status === "duplicate" ? outcome.clusterName : cluster.name,
        openshiftVersion: item.openshiftVersion,
        sealedCredentials: null,
        heldBy: null,
        finishedAt: now,
      },
    });
    return outcome;
  });
}

export type JobCounts = Record<RegistrationItemStatus, number> & { total: number };

/**
 * Marks a job finished once none of its items is pending or being tested, with an audit event
 * that gives its counts; exactly once, whichever process finishes its last item.
 */
export async function finishJobIfDone(
  jobId: string,
  audit: (counts: JobCounts) => AuditInput,
  now = new Date(),
): Promise<JobCounts | null> {
  return getDb().$transaction(async (tx) => {
    const marked = await tx.$executeRaw`
      UPDATE "RegistrationJob" SET "finishedAt" = ${now}
      WHERE "id" = ${jobId}::uuid AND "finishedAt" IS NULL
        AND NOT EXISTS (SELECT 1 FROM "RegistrationJobItem" WHERE "jobId" = ${jobId}::uuid AND "status" IN ('pending', 'testing'))`;
    if (marked === 0) return null;
    const groups = await tx.registrationJobItem.groupBy({ by: ["status"], where: { jobId }, _count: { _all: true } });
    const counts = countsOf(groups.map((g) => ({ status: g.status, count: g._count._all })));
    await tx.auditEvent.create({ data: auditRow(audit(counts)) });
    return counts;
  });
}

export function countsOf(groups: { status: string; count: number }[]): JobCounts {
  const counts: JobCounts = { total: 0, pending: 0, testing: 0, registered: 0, duplicate: 0, failed: 0 };
  for (const g of groups) {
    if (g.status in counts) counts[g.status as RegistrationItemStatus] += g.count;
    counts.total += g.count;
  }
  return counts;
}

export async function findRegistrationJob(id: string): Promise<RegistrationJobRecord | null> {
  const job = await getDb().registrationJob.findUnique({
    where: { id },
    include: { items: { orderBy: { position: "asc" }, omit: { sealedCredentials: true } } },
  });
  if (!job) return null;
  return {
    id: job.id,
    createdBy: job.createdBy,
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
    labels: (job.labels ?? {}) as Record<string, string>,
    items: job.items.map((i) => ({
      position: i.position,
      context: i.context,
      name: i.name,
      apiUrl: i.apiUrl,
      status: i.status as RegistrationItemStatus,
      reason: i.reason,
      clusterName: i.clusterName,
      openshiftVersion: i.openshiftVersion,
      attempts: i.attempts,
      finishedAt: i.finishedAt?.toISOString() ?? null,
    })),
  };
}
