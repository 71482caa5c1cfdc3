import { getDb } from "./db";
import type { ClusterSummary, ContactStatus } from "./clusters";

/**
 * The fleet table: every cluster with its newest summary, in one query (no snapshots), because it
 * is what admins open every morning and it must stay fast at 10,000 clusters.
 */
export type FleetRow = ClusterSummary & {
  offline: boolean;
  version: string | null;
  skewStatus: string;
  skewSummary: string | null;
  enforcementMode: string | null;
  oldestBootImage: string | null;
  readinessTarget: string | null;
  readinessStatus: string;
  readinessBlocker: string | null;
  /** When the collector last saw the cluster's state (the capture time for offline clusters). */
  lastSeenAt: string | null;
};

type Raw = {
  id: string;
  name: string;
  displayName: string;
  labels: unknown;
  platform: string | null;
  apiUrl: string;
  offline: boolean;
  lastContactAt: Date | null;
  lastContactStatus: ContactStatus;
  lastContactError: string | null;
  version: string | null;
  skewStatus: string | null;
  skewSummary: string | null;
  enforcementMode: string | null;
  oldestBootImage: string | null;
  readinessTarget: string | null;
  readinessStatus: string | null;
  readinessBlocker: string | null;
  lastSeenAt: Date | null;
};

const toRow = (r: Raw): FleetRow => ({
  id: r.id,
  name: r.name,
  displayName: r.displayName,
  labels: (r.labels ?? {}) as Record<string, string>,
  platform: r.platform,
  apiUrl: r.apiUrl,
  offline: r.offline,
  lastContactAt: r.lastContactAt?.toISOString() ?? null,
  lastContactStatus: r.lastContactStatus,
  lastContactError: r.lastContactError,
  version: r.version,
  skewStatus: r.skewStatus ?? "unknown",
  skewSummary: r.skewSummary,
  enforcementMode: r.enforcementMode,
  oldestBootImage: r.oldestBootImage,
  readinessTarget: r.readinessTarget,
  readinessStatus: r.readinessStatus ?? "unknown",
  readinessBlocker: r.readinessBlocker,
  lastSeenAt: r.lastSeenAt?.toISOString() ?? null,
});

export async function listFleetRows(name?: string): Promise<FleetRow[]> {
  const rows = await getDb().$queryRaw<Raw[]>`
    SELECT c."id", c."name", c."displayName", c."labels", c."platform", c."apiUrl", c."offline",
           c."lastContactAt", c."lastContactStatus"::text AS "lastContactStatus", c."lastContactError",
           s."version", s."skewStatus", s."skewSummary", s."enforcementMode", s."oldestBootImage",
           s."readinessTarget", s."readinessStatus", s."readinessBlocker", s."lastSeenAt"
      FROM "Cluster" c LEFT JOIN "ClusterState" s ON s."clusterId" = c."id"
     WHERE ${name ?? null}::text IS NULL OR c."name" = ${name ?? null}
     ORDER BY c."name"`;
  return rows.map(toRow);
}

export async function findFleetRow(name: string): Promise<FleetRow | null> {
  return (await listFleetRows(name))[0] ?? null;
}

export type StoredSnapshot = { id: string; name: string; offline: boolean; snapshot: unknown; lastSeenAt: string };

/**
 * Newest snapshots of many clusters, a page at a time in name order (snapshots are large: callers
 * that scan the fleet go page by page). `concerning` keeps clusters whose skew is blocked or at
 * risk, or whose enforcement is Manual: the ones an acknowledgement can be about.
 */
export async function listSnapshots(options: { after?: string; limit?: number; concerning?: boolean } = {}): Promise<StoredSnapshot[]> {
  const rows = await getDb().clusterState.findMany({
    where: {
      cluster: { name: { gt: options.after ?? "" } },
      ...(options.concerning ? { OR: [{ skewStatus: { in: ["blocked", "at-risk"] } }, { enforcementMode: "Manual" }] } : {}),
    },
    orderBy: { cluster: { name: "asc" } },
    take: Math.min(options.limit ?? 200, 1000),
    select: { snapshot: true, lastSeenAt: true, cluster: { select: { id: true, name: true, offline: true } } },
  });
  return rows.map((r) => ({ ...r.cluster, snapshot: r.snapshot, lastSeenAt: r.lastSeenAt.toISOString() }));
}
