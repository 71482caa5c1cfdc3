import type { ClusterSignals } from "../domain/alertSignals";
import type { Reach } from "../domain/grants";
import { FLEET_FROM, OFFLINE, queryText, staleWhen, storedTime } from "./fleet";
import { adder, reachSql } from "./scope";

/**
 * The clusters and rollouts that need someone's action, for /metrics and the alert list, in two
 * queries. Only clusters with something to say come back: the collector's signals, failed sweeps, or
 * a pending acknowledgement; a healthy cluster is filtered out in the database. Times are the
 * database's (UTC columns, `now() AT TIME ZONE 'UTC'`), so every replica agrees on ages.
 */
const NOW = `(now() AT TIME ZONE 'UTC')`;

export type ClusterAttention = {
  name: string;
  labels: Record<string, string>;
  hub: string | null;
  /** From the hub's ManagedCluster, else the cluster's own label of the same name. */
  clusterSet: string | null;
  signals: ClusterSignals | null;
  /** Consecutive failed sweeps (0 for offline clusters, which are never swept). */
  failedSweeps: number;
  contactStatus: string;
  contactError: string | null;
  lastContactAt: string | null;
  pendingAcknowledgements: number;
  /** Seconds the oldest pending acknowledgement of the cluster has waited. */
  oldestPendingSeconds: number;
};

/** `reach`: /metrics asks for the whole fleet (FLEET_WIDE); the alert list for the reader's reach. */
export async function listClustersNeedingAction(reach: Reach): Promise<ClusterAttention[]> {
  const values: unknown[] = [];
  const inReach = reachSql(reach, adder(values));
  const rows = await queryText(
    // The candidates come from three small indexed sets (partial indexes on signals and failures), so
    // the query costs what the trouble costs, not what the fleet does.
    `WITH acks AS (
       SELECT "clusterId", count(*) AS n, EXTRACT(EPOCH FROM (${NOW} - min("requestedAt")))::float8 AS age
         FROM "Acknowledgement" WHERE "status" = 'pending' GROUP BY "clusterId"),
     candidates AS (
       SELECT "clusterId" AS id FROM "ClusterState" WHERE "signals" IS NOT NULL
       UNION SELECT "clusterId" FROM "SweepSchedule" WHERE "failures" > 0
       UNION SELECT "clusterId" FROM acks)
     SELECT c."name", c."labels", h."name", m."clusterSet", s."signals",
            CASE WHEN ${OFFLINE} THEN 0 ELSE coalesce(l."failures", 0) END, c."lastContactStatus", c."lastContactError",
            to_char(c."lastContactAt", 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), coalesce(a.n, 0), coalesce(a.age, 0)
       FROM candidates k
       JOIN "Cluster" c ON c."id" = k.id
       LEFT JOIN "ClusterState" s ON s."clusterId" = c."id"
       LEFT JOIN "SweepSchedule" l ON l."clusterId" = c."id"
       LEFT JOIN "Hub" h ON h."id" = c."hubId"
       LEFT JOIN "HubMember" m ON m."hubId" = c."hubId" AND m."registeredAs" = c."name"
       LEFT JOIN acks a ON a."clusterId" = c."id"
      WHERE (s."signals" IS NOT NULL OR a.n IS NOT NULL OR (NOT ${OFFLINE} AND l."failures" > 0)) AND ${inReach}
      ORDER BY c."name"`,
    values,
  );
  return rows.map((r) => {
    const labels = JSON.parse(r[1] ?? "{}") as Record<string, string>;
    return {
      name: r[0]!,
      labels,
      hub: r[2] ?? null,
      clusterSet: r[3] ?? labels["cluster.open-cluster-management.io/clusterset"] ?? null,
      signals: r[4] ? (JSON.parse(r[4]) as ClusterSignals) : null,
      failedSweeps: Number(r[5] ?? 0),
      contactStatus: r[6] ?? "unknown",
      contactError: r[7] ?? null,
      lastContactAt: r[8] ?? null,
      pendingAcknowledgements: Number(r[9] ?? 0),
      oldestPendingSeconds: Math.max(0, Number(r[10] ?? 0)),
    };
  });
}

export type RolloutAttention = {
  number: number;
  kind: string;
  status: string;
  statusReason: string | null;
  failedClusters: number;
  /** Seconds since the rollout last changed (for a paused one: how long it has been paused, at most). */
  sinceSeconds: number;
};

/** Rollouts not finished that are paused or have failed clusters. */
/**
 * `reach`: a rollout is about its clusters, so a reader sees the alerts of rollouts that include at
 * least one cluster in reach (their failures counted over the whole rollout, as its page says).
 */
export async function listRolloutsNeedingAction(reach: Reach): Promise<RolloutAttention[]> {
  const values: unknown[] = [];
  const inReach =
    reach.kind === "fleet"
      ? "TRUE"
      : `EXISTS (SELECT 1 FROM "RolloutCluster" rr JOIN "Cluster" c ON c."name" = rr."clusterName" WHERE rr."rolloutId" = r."id" AND ${reachSql(reach, adder(values))})`;
  const rows = await queryText(
    `SELECT r."number", r."kind", r."status", r."statusReason",
            (SELECT count(*) FROM "RolloutCluster" rc WHERE rc."rolloutId" = r."id" AND rc."state" = 'failed'),
            EXTRACT(EPOCH FROM (${NOW} - r."updatedAt"))::float8
       FROM "Rollout" r
      WHERE r."status" IN ('running', 'paused')
        AND (r."status" = 'paused' OR EXISTS (SELECT 1 FROM "RolloutCluster" rc WHERE rc."rolloutId" = r."id" AND rc."state" = 'failed'))
        AND ${inReach}
      ORDER BY r."number"`,
    values,
  );
  return rows.map((r) => ({
    number: Number(r[0]),
    kind: r[1]!,
    status: r[2]!,
    statusReason: r[3] ?? null,
    failedClusters: Number(r[4] ?? 0),
    sinceSeconds: Math.max(0, Number(r[5] ?? 0)),
  }));
}

export type FleetCounts = { clusters: number; bySkew: Record<string, number>; byReadiness: Record<string, number>; stale: number };

/** The counts /metrics exports, in one grouped pass over the fleet (the fleet page's facets compute many more). */
export async function fleetCounts(staleBefore: Date): Promise<FleetCounts> {
  const rows = await queryText(
    `SELECT coalesce(s."skewStatus", 'unknown'), coalesce(s."readinessStatus", 'unknown'), (${staleWhen("$1")}), count(*)
       FROM ${FLEET_FROM} GROUP BY 1, 2, 3`,
    [storedTime(staleBefore)],
  );
  const counts: FleetCounts = { clusters: 0, bySkew: {}, byReadiness: {}, stale: 0 };
  for (const [skew, readiness, stale, n] of rows) {
    const count = Number(n);
    counts.clusters += count;
    counts.bySkew[skew!] = (counts.bySkew[skew!] ?? 0) + count;
    counts.byReadiness[readiness!] = (counts.byReadiness[readiness!] ?? 0) + count;
    if (stale === "t") counts.stale += count;
  }
  return counts;
}
