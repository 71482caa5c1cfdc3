import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { retryOnConflict } from "./errors";
import { Prisma } from "./generated/prisma/client";

export type ContactStatus = "unknown" | "ok" | "unreachable" | "unauthorized" | "stale";

/** What the UI may see of a cluster: never its credentials. */
export type ClusterSummary = {
  id: string;
  name: string;
  displayName: string;
  labels: Record<string, string>;
  platform: string | null;
  apiUrl: string;
  lastContactAt: string | null;
  lastContactStatus: ContactStatus;
  lastContactError: string | null;
  /** Imported from object dumps: never contacted, no credentials. */
  offline: boolean;
};

type Actor = Omit<AuditInput, "action" | "targetType" | "targetId">;

export class ClusterNameTakenError extends Error {
  override name = "ClusterNameTakenError";
}

const toSummary = (r: {
  id: string;
  name: string;
  displayName: string;
  labels: unknown;
  platform: string | null;
  apiUrl: string;
  lastContactAt: Date | null;
  lastContactStatus: ContactStatus;
  lastContactError: string | null;
  offline: boolean;
}): ClusterSummary => ({
  id: r.id,
  name: r.name,
  displayName: r.displayName,
  labels: (r.labels ?? {}) as Record<string, string>,
  platform: r.platform,
  apiUrl: r.apiUrl,
  lastContactAt: r.lastContactAt?.toISOString() ?? null,
  lastContactStatus: r.lastContactStatus,
  lastContactError: r.lastContactError,
  offline: r.offline,
});

export async function countClusters(where: { excludeLabels?: [string, string][] } = {}): Promise<number> {
  const excluded = where.excludeLabels ?? [];
  if (excluded.length === 0) return getDb().cluster.count();
  return getDb().cluster.count({ where: { AND: excluded.map(([key, value]) => ({ NOT: { labels: { path: [key], equals: value } } })) } });
}

export async function listClusterSummaries(): Promise<ClusterSummary[]> {
  const rows = await getDb().cluster.findMany({ orderBy: { name: "asc" }, omit: { encryptedCredentials: true } });
  return rows.map(toSummary);
}

export async function findClusterSummary(name: string): Promise<ClusterSummary | null> {
  const row = await getDb().cluster.findUnique({ where: { name }, omit: { encryptedCredentials: true } });
  return row ? toSummary(row) : null;
}

/**
 * The sealed credentials of a cluster, for server/clusters to open; never leaves the server. An
 * offline cluster has none (an empty value), which `offline` says so nobody tries to open it.
 */
export async function findClusterCredentials(name: string): Promise<{ sealed: Buffer; offline: boolean } | null> {
  const row = await getDb().cluster.findUnique({ where: { name }, select: { encryptedCredentials: true, offline: true } });
  return row ? { sealed: Buffer.from(row.encryptedCredentials), offline: row.offline } : null;
}

export type NewCluster = {
  name: string;
  displayName: string;
  labels: Record<string, string>;
  platform: string | null;
  apiUrl: string;
  encryptedCredentials: Buffer;
  contact?: { status: ContactStatus; error: string | null; at: Date };
  /** ClusterVersion spec.clusterID, when the cluster was contacted. */
  openshiftClusterId?: string | null;
  /** Registered from an ACM hub: which one, and the cluster's state there. */
  hubId?: string | null;
  hubState?: string | null;
  /** Which hub-issued credential is sealed (a ManagedServiceAccount token Secret's version). */
  hubCredentialsVersion?: string | null;
};

/** The row of a new cluster, as every way of registering one writes it. */
export const clusterRow = (input: NewCluster) => ({
  name: input.name,
  displayName: input.displayName,
  labels: input.labels,
  platform: input.platform,
  apiUrl: input.apiUrl,
  encryptedCredentials: new Uint8Array(input.encryptedCredentials),
  lastContactAt: input.contact?.at ?? null,
  lastContactStatus: input.contact?.status ?? "unknown",
  lastContactError: input.contact?.error ?? null,
  openshiftClusterId: input.openshiftClusterId ?? null,
  hubId: input.hubId ?? null,
  hubState: input.hubState ?? null,
  hubCredentialsVersion: input.hubCredentialsVersion ?? null,
});

export async function insertCluster(input: NewCluster, actor: Actor): Promise<ClusterSummary> {
  try {
    const [row] = await getDb().$transaction([
      getDb().cluster.create({
        data: clusterRow(input),
        omit: { encryptedCredentials: true },
      }),
      getDb().auditEvent.create({
        data: auditRow({
          ...actor,
          action: "cluster.register",
          targetType: "cluster",
          targetId: input.name,
          details: { apiUrl: input.apiUrl, ...actor.details },
        }),
      }),
    ]);
    return toSummary(row);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      throw new ClusterNameTakenError(`a cluster named ${input.name} is already registered`);
    throw error;
  }
}

/**
 * Registers many clusters in one transaction, each with its own audit event (bulk imports, the
 * fleet benchmark). Names already registered make the whole batch fail with ClusterNameTakenError.
 */
export async function insertClusters(inputs: NewCluster[], actor: Actor): Promise<number> {
  if (inputs.length === 0) return 0;
  try {
    const [created] = await getDb().$transaction([
      getDb().cluster.createMany({
        data: inputs.map(clusterRow),
      }),
      getDb().auditEvent.createMany({
        data: inputs.map((input) =>
          auditRow({
            ...actor,
            action: "cluster.register",
            targetType: "cluster",
            targetId: input.name,
            details: { apiUrl: input.apiUrl, ...actor.details },
          }),
        ),
      }),
    ]);
    return created.count;
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002")
      throw new ClusterNameTakenError(`one of ${inputs.length} clusters is already registered`);
    throw error;
  }
}

export type ClusterChange = {
  displayName?: string;
  labels?: Record<string, string>;
  apiUrl?: string;
  platform?: string | null;
  encryptedCredentials?: Buffer;
};

export async function updateCluster(name: string, change: ClusterChange, actor: Actor): Promise<ClusterSummary | null> {
  return getDb().$transaction(async (tx) => {
    const existing = await tx.cluster.findUnique({ where: { name }, select: { id: true } });
    if (!existing) return null;
    const row = await tx.cluster.update({
      where: { name },
      data: {
        ...(change.displayName !== undefined ? { displayName: change.displayName } : {}),
        ...(change.labels !== undefined ? { labels: change.labels } : {}),
        ...(change.apiUrl !== undefined ? { apiUrl: change.apiUrl } : {}),
        ...(change.platform !== undefined ? { platform: change.platform } : {}),
        ...(change.encryptedCredentials ? { encryptedCredentials: new Uint8Array(change.encryptedCredentials) } : {}),
      },
      omit: { encryptedCredentials: true },
    });
    const details: Record<string, unknown> = { ...actor.details };
    if (change.displayName !== undefined) details.displayName = change.displayName;
    if (change.labels !== undefined) details.labels = change.labels;
    if (change.encryptedCredentials) details.credentialsReplaced = true;
    if (change.apiUrl !== undefined) details.apiUrl = change.apiUrl;
    await tx.auditEvent.create({ data: auditRow({ ...actor, action: "cluster.update", targetType: "cluster", targetId: name, details }) });
    return toSummary(row);
  });
}

/**
 * Removes a cluster and everything kept of it (cascading to its state, history, schedule and more).
 * The cascade locks rows a sweep or a hub sync of the same cluster may be writing in another order:
 * PostgreSQL then breaks the deadlock by rolling one back, and a rolled-back removal runs again.
 */
export async function deleteCluster(name: string, actor: Actor): Promise<boolean> {
  return retryOnConflict(() =>
    getDb().$transaction(async (tx) => {
      const { count } = await tx.cluster.deleteMany({ where: { name } });
      if (count === 0) return false;
      await tx.auditEvent.create({ data: auditRow({ ...actor, action: "cluster.remove", targetType: "cluster", targetId: name }) });
      return true;
    }),
  );
}

/** The outcome of a connection test, as the cluster's last contact, with its audit event in the same transaction. */
export async function recordContact(
  name: string,
  contact: { status: ContactStatus; error: string | null; at: Date; platform?: string | null; openshiftClusterId?: string | null },
  audit: AuditInput,
): Promise<void> {
  await getDb().$transaction([
    getDb().cluster.updateMany({
      where: { name },
      data: {
        lastContactAt: contact.at,
        lastContactStatus: contact.status,
        lastContactError: contact.error,
        ...(contact.platform ? { platform: contact.platform } : {}),
        ...(contact.openshiftClusterId ? { openshiftClusterId: contact.openshiftClusterId } : {}),
      },
    }),
    getDb().auditEvent.create({ data: auditRow(audit) }),
  ]);
}
