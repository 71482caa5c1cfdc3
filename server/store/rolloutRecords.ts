/**
 * Rollouts as the rest of the console reads them: their statuses, the records of a rollout, its
 * waves and its clusters, and the one decoding of a stored row (its request read by its schema, a
 * request this version cannot read named, never guessed at). Every other rollout module of the
 * store builds on these records.
 */
import { decodeStoredRequest } from "../domain/rollouts/storedRequest";
import type { ClusterState } from "../domain/rollouts/progress";
import type { RolloutRequest } from "../domain/rollouts/request";
import type { Reach } from "../domain/grants";
import { getDb } from "./db";
import { clustersOfRolloutInReach } from "./rolloutScope";

export const ROLLOUT_STATUSES = ["awaiting-approval", "running", "paused", "completed", "aborted"] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];
/** A rollout that has not ended holds its clusters: none of them may enter another. */
export const ACTIVE_STATUSES: readonly RolloutStatus[] = ["awaiting-approval", "running", "paused"];

export type RolloutRecord = {
  id: string;
  number: number;
  kind: "upgrade" | "bundle" | "acknowledgement";
  status: RolloutStatus;
  statusReason: string | null;
  /** Decoded once, here, by its schema (StoredRolloutRequestSchema). */
  request: RolloutRequest;
  createdById: string;
  createdBy: string;
  createdAt: string;
  approvedBy: string | null;
  approvedAt: string | null;
  /** The digest of the plan as it was approved; null until then. */
  approvedDigest: string | null;
  finishedAt: string | null;
  estimateMs: number | null;
};

/** A stored rollout whose request this version cannot read: a fault of the data, named, never guessed at. */
export class UnreadableRolloutError extends Error {
  constructor(
    readonly number: number,
    reason: string,
  ) {
    super(`Rollout ${number}'s stored request cannot be read (${reason}); it was saved by a version that wrote it differently`);
  }
}

export type RolloutWaveRecord = {
  index: number;
  name: string;
  kind: string;
  mandatory: boolean;
  releasedAt: string | null;
  releasedBy: string | null;
};

/** A cluster's state in a rollout: its step's, or excluded by its checks when the plan was made. */
export type RolloutClusterState = ClusterState | "excluded";

export type RolloutClusterRecord = {
  clusterName: string;
  wave: number;
  state: RolloutClusterState;
  reason: string | null;
  includedBy: string | null;
  includedWhy: string | null;
  windowOpensAt: string | null;
  startedAt: string | null;
  writtenAt: string | null;
  finishedAt: string | null;
};

const iso = (d: Date | null) => d?.toISOString() ?? null;

type RolloutRow = Awaited<ReturnType<ReturnType<typeof getDb>["rollout"]["findFirstOrThrow"]>>;
export function recordOf(r: RolloutRow): RolloutRecord {
  const decoded = decodeStoredRequest(r.request);
  if (!decoded.ok) throw new UnreadableRolloutError(r.number, decoded.reason);
  return {
    id: r.id,
    number: r.number,
    kind: decoded.request.kind,
    status: r.status as RolloutStatus,
    statusReason: r.statusReason,
    request: decoded.request,
    createdById: r.createdById,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    approvedBy: r.approvedBy,
    approvedAt: iso(r.approvedAt),
    approvedDigest: r.approvedDigest,
    finishedAt: iso(r.finishedAt),
    estimateMs: r.estimateMs === null ? null : Number(r.estimateMs),
  };
}

export async function findRollout(idOrNumber: string): Promise<RolloutRecord | null> {
  const number = /^\d{1,9}$/.test(idOrNumber) ? Number(idOrNumber) : null;
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrNumber);
  if (number === null && !isUuid) return null;
  const row = await getDb().rollout.findFirst({ where: number !== null ? { number } : { id: idOrNumber } });
  return row ? recordOf(row) : null;
}

/** Newest first; `ids` (from rolloutIdsInReach) limits the list to a reader's part of the fleet. */
export async function listRollouts(limit = 200, ids?: string[]): Promise<RolloutRecord[]> {
  return (await getDb().rollout.findMany({ where: ids ? { id: { in: ids } } : {}, orderBy: { number: "desc" }, take: limit })).map(
    recordOf,
  );
}

export async function rolloutWaves(rolloutId: string): Promise<RolloutWaveRecord[]> {
  const rows = await getDb().rolloutWave.findMany({ where: { rolloutId }, orderBy: { index: "asc" } });
  return rows.map((w) => ({
    index: w.index,
    name: w.name,
    kind: w.kind,
    mandatory: w.mandatory,
    releasedAt: iso(w.releasedAt),
    releasedBy: w.releasedBy,
  }));
}

/** One page of a rollout's clusters, in wave then name order, after `after` (`wave:name`). */
export async function rolloutClusters(
  rolloutId: string,
  options: { state?: string; after?: { wave: number; name: string }; limit: number; reach?: Reach },
): Promise<RolloutClusterRecord[]> {
  // Only rows about clusters in reach: a scoped reader's page names none of the others.
  const inReach = options.reach && options.reach.kind !== "fleet" ? await clustersOfRolloutInReach(rolloutId, options.reach) : null;
  const rows = await getDb().rolloutCluster.findMany({
    where: {
      rolloutId,
      ...(inReach ? { clusterName: { in: inReach } } : {}),
      ...(options.state ? { state: options.state } : {}),
      ...(options.after
        ? { OR: [{ wave: { gt: options.after.wave } }, { wave: options.after.wave, clusterName: { gt: options.after.name } }] }
        : {}),
    },
    orderBy: [{ wave: "asc" }, { clusterName: "asc" }],
    take: options.limit,
  });
  return rows.map((r) => ({
    clusterName: r.clusterName,
    wave: r.wave,
    state: r.state as RolloutClusterState,
    reason: r.reason,
    includedBy: r.includedBy,
    includedWhy: r.includedWhy,
    windowOpensAt: iso(r.windowOpensAt),
    startedAt: iso(r.startedAt),
    writtenAt: iso(r.writtenAt),
    finishedAt: iso(r.finishedAt),
  }));
}

/** The rollouts a cluster took part in (or was excluded from), newest first. */
export async function rolloutsOfCluster(
  clusterName: string,
  limit = 50,
): Promise<(RolloutRecord & { clusterState: RolloutClusterState; clusterReason: string | null; clusterFinishedAt: string | null })[]> {
  const rows = await getDb().rolloutCluster.findMany({
    where: { clusterName },
    include: { rollout: true },
    orderBy: { rollout: { number: "desc" } },
    take: limit,
  });
  return rows.map((r) => ({
    ...recordOf(r.rollout),
    clusterState: r.state as RolloutClusterState,
    clusterReason: r.reason,
    clusterFinishedAt: iso(r.finishedAt),
  }));
}
