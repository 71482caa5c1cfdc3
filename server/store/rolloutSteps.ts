/**
 * What the runner reads and changes: the rollouts it looks after, each included cluster with what
 * the runner decides from, and the conditional changes of clusters' steps, so a step is started by
 * one runner only. The claim that precedes every write is in rolloutClaims.ts.
 */
import { clipText } from "../domain/clip";
import type { ClusterState } from "../domain/rollouts/progress";
import type { MaintenanceWindow } from "../domain/rollouts/windows";
import { getDb } from "./db";
import { queryText, storedTime } from "./fleet";
import { BRAKED_TO_FOLLOW, CLAIM_LEASE_MS, IN_FLIGHT } from "./rolloutClaims";
import { recordOf, type RolloutRecord } from "./rolloutRecords";
import { decodeFrozenWindow } from "./rolloutWindows";

/**
 * Rollouts the runner looks after: running ones move on; paused ones still have steps to follow;
 * ended ones while a brake left a step sent and not yet seen to its end.
 */
export async function rolloutsToAdvance(): Promise<RolloutRecord[]> {
  const ids = await queryText(
    `SELECT r."id" FROM "Rollout" r
      WHERE r."status" IN ('running', 'paused')
         OR (r."status" IN ('aborted', 'completed')
             AND EXISTS (SELECT 1 FROM "RolloutCluster" rc WHERE rc."rolloutId" = r."id" AND rc."state" IN ('running', 'skipped') AND ${BRAKED_TO_FOLLOW("rc")}))`,
    [],
  );
  if (!ids.length) return [];
  const rows = await getDb().rollout.findMany({ where: { id: { in: ids.map((r) => r[0]!) } }, orderBy: { number: "asc" } });
  return rows.map(recordOf);
}

export type RunnerCluster = {
  name: string;
  wave: number;
  state: ClusterState;
  startedAt: Date | null;
  writtenAt: Date | null;
  finishedAt: Date | null;
  labels: Record<string, string>;
  /** Write attempts made, whether one is on the wire now, when the next is due, and a skipped step's outcome. */
  attempts: number;
  claimed: boolean;
  nextAttemptAt: Date | null;
  outcome: string | null;
  /** The window frozen at approval (null: none); undefined when none was frozen (read the labels). */
  frozenWindow: MaintenanceWindow | null | undefined;
};

/** Every included cluster of a rollout with what the runner decides from, in one query. */
export async function runnerClusters(rolloutId: string, leaseMs = CLAIM_LEASE_MS): Promise<RunnerCluster[]> {
  const rows = await queryText(
    `SELECT rc."clusterName", rc."wave", rc."state", rc."startedAt", rc."writtenAt", rc."finishedAt", coalesce(c."labels", '{}'),
            rc."attempts", ${IN_FLIGHT("rc", "$2::timestamp")}, rc."nextAttemptAt", rc."outcome",
            rc."windowFrozenAt" IS NOT NULL, rc."frozenWindow"
       FROM "RolloutCluster" rc LEFT JOIN "Cluster" c ON c."name" = rc."clusterName"
      WHERE rc."rolloutId" = $1::uuid AND rc."state" <> 'excluded'`,
    [rolloutId, storedTime(new Date(Date.now() - leaseMs))],
  );
  const at = (text: string | null | undefined) => (text ? new Date(`${text.replace(" ", "T")}Z`) : null);
  return rows.map((r) => ({
    name: r[0]!,
    wave: Number(r[1]),
    state: r[2] as ClusterState,
    startedAt: at(r[3]),
    writtenAt: at(r[4]),
    finishedAt: at(r[5]),
    labels: JSON.parse(r[6] ?? "{}") as Record<string, string>,
    attempts: Number(r[7]),
    claimed: r[8] === "t",
    nextAttemptAt: at(r[9]),
    outcome: r[10] ?? null,
    frozenWindow: r[11] === "t" ? decodeFrozenWindow(r[12] ? JSON.parse(r[12]) : null) : undefined,
  }));
}

export type ClusterChange = {
  state?: ClusterState;
  reason?: string | null;
  windowOpensAt?: Date | null;
  startedAt?: Date;
  writtenAt?: Date;
  finishedAt?: Date;
};

/**
 * Changes clusters of a rollout that are still in one of `from`, and says which it changed: a
 * step is started by the one runner whose change took, never by two. The reason is most often a
 * cluster's own words (a condition's message, its answer to a write): clipped here, where every
 * writer's text enters the store (server/domain/clip.ts).
 */
export async function changeRolloutClusters(
  rolloutId: string,
  names: string[],
  from: readonly ClusterState[],
  change: ClusterChange,
): Promise<string[]> {
  if (!names.length) return [];
  const changed = await getDb().$queryRawUnsafe<{ clusterName: string }[]>(
    `UPDATE "RolloutCluster" SET
        "state" = coalesce($4, "state"),
        "reason" = CASE WHEN $5::boolean THEN $6 ELSE "reason" END,
        "windowOpensAt" = CASE WHEN $7::boolean THEN $8::timestamp ELSE "windowOpensAt" END,
        "startedAt" = coalesce($9::timestamp, "startedAt"),
        "writtenAt" = coalesce($10::timestamp, "writtenAt"),
        "finishedAt" = coalesce($11::timestamp, "finishedAt")
      WHERE "rolloutId" = $1::uuid AND "clusterName" = ANY($2::text[]) AND "state" = ANY($3::text[])
      RETURNING "clusterName"`,
    rolloutId,
    names,
    from,
    change.state ?? null,
    change.reason !== undefined,
    clipText(change.reason ?? null),
    change.windowOpensAt !== undefined,
    change.windowOpensAt ? storedTime(change.windowOpensAt) : null,
    change.startedAt ? storedTime(change.startedAt) : null,
    change.writtenAt ? storedTime(change.writtenAt) : null,
    change.finishedAt ? storedTime(change.finishedAt) : null,
  );
  return changed.map((c) => c.clusterName);
}
