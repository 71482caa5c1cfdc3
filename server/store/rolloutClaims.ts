import { randomUUID } from "node:crypto";
import { clipText } from "../domain/clip";
import { getDb } from "./db";
import { queryText, storedTime } from "./fleet";

/**
 * The claim every rollout write is preceded by. One statement claims a step for one writer only
 * when, as it runs, the rollout is running, the step is running, not written, due (its backoff
 * passed), claimed by no live writer, and its cluster is still the one the plan froze (same id
 * under the same name). The statement takes a share lock on the rollout's row: abort, pause and
 * skip hold that row's update lock while they change it, so a claim either committed before them
 * (and is counted by them as in flight) or runs after them and finds the rollout or the step
 * braked. No write is sent without a claim, so after a brake's answer only the counted writes go out.
 */

/**
 * A claim older than this is a writer that stopped (its process ended mid-write): a cluster write
 * is bounded by the client's timeouts (10 s a request, a few requests a step), far below it.
 */
export const CLAIM_LEASE_MS = 2 * 60_000;

export type WriteClaim = { token: string; attempt: number };

/** Claims `name`'s write for one writer, or null when the step may not be written now (see above). */
export async function claimWrite(rolloutId: string, name: string, at: Date, leaseMs = CLAIM_LEASE_MS): Promise<WriteClaim | null> {
  const token = randomUUID();
  const rows = await queryText(
    `WITH live AS (SELECT r."id" FROM "Rollout" r WHERE r."id" = $1::uuid AND r."status" = 'running' FOR SHARE)
     UPDATE "RolloutCluster" rc SET "claimedBy" = $3::uuid, "claimedAt" = $4::timestamp, "attempts" = rc."attempts" + 1, "nextAttemptAt" = NULL
      WHERE rc."rolloutId" = $1::uuid AND rc."clusterName" = $2 AND rc."state" = 'running' AND rc."writtenAt" IS NULL
        AND EXISTS (SELECT 1 FROM live)
        AND (rc."claimedBy" IS NULL OR rc."claimedAt" < $5::timestamp)
        AND (rc."nextAttemptAt" IS NULL OR rc."nextAttemptAt" <= $4::timestamp)
        AND EXISTS (SELECT 1 FROM "Cluster" c WHERE c."id" = rc."clusterId" AND c."name" = rc."clusterName")
      RETURNING rc."attempts"`,
    [rolloutId, name, token, storedTime(at), storedTime(new Date(at.getTime() - leaseMs))],
  );
  return rows[0] ? { token, attempt: Number(rows[0][0]) } : null;
}

/** How a claimed write ended. */
export type WriteEnd =
  | { type: "written"; at: Date }
  /** The cluster answered and refused (or the last attempt failed): the step fails with `reason`. */
  | { type: "failed"; reason: string; at: Date }
  /** Not known whether the cluster took it: attempted again at `retryAt`. */
  | { type: "retry"; reason: string; retryAt: Date };

/**
 * Ends a claim, whatever happened to the step meanwhile: a write answered after its cluster was
 * skipped (or its rollout aborted) is recorded as written, so the runner follows it to its end.
 * A step no longer running keeps its state and reason; a failure there is its outcome.
 */
export async function endWrite(rolloutId: string, name: string, claim: WriteClaim, end: WriteEnd): Promise<void> {
  const written = end.type === "written";
  const failed = end.type === "failed";
  await getDb().$executeRawUnsafe(
    `UPDATE "RolloutCluster" SET "claimedBy" = NULL, "claimedAt" = NULL,
        "writtenAt" = CASE WHEN $4::boolean THEN $6::timestamp ELSE "writtenAt" END,
        "nextAttemptAt" = $7::timestamp,
        "state" = CASE WHEN $5::boolean AND "state" = 'running' THEN 'failed' ELSE "state" END,
        "finishedAt" = CASE WHEN $5::boolean AND "state" = 'running' THEN $6::timestamp ELSE "finishedAt" END,
        "reason" = CASE WHEN "state" = 'running' THEN (CASE WHEN $4::boolean THEN NULL ELSE $8 END)
                        WHEN $4::boolean THEN "reason"
                        ELSE left(coalesce("reason", '') || '; the write on the wire then: ' || $8, 32768) END,
        "outcome" = CASE WHEN "state" = 'running' OR $4::boolean THEN "outcome" WHEN $5::boolean THEN 'failed' ELSE 'unconfirmed' END
      WHERE "rolloutId" = $1::uuid AND "clusterName" = $2 AND "claimedBy" = $3::uuid`,
    rolloutId,
    name,
    claim.token,
    written,
    failed,
    storedTime(end.type === "retry" ? end.retryAt : end.at),
    end.type === "retry" ? storedTime(end.retryAt) : null,
    written ? null : clipText(end.reason),
  );
}

/**
 * Fails the running, unwritten steps among `names` whose cluster is no longer the one the plan
 * froze: removed, or removed and another registered under its name. Returns the failed ones.
 */
export async function failReplacedClusters(rolloutId: string, names: string[], at: Date): Promise<string[]> {
  if (!names.length) return [];
  const rows = await queryText(
    `UPDATE "RolloutCluster" rc SET "state" = 'failed', "finishedAt" = $3::timestamp,
            "reason" = CASE WHEN EXISTS (SELECT 1 FROM "Cluster" n WHERE n."name" = rc."clusterName")
              THEN 'not written: the cluster planned under this name was removed, and the one registered under it since is another cluster'
              ELSE 'not written: the cluster planned under this name was removed' END
      WHERE rc."rolloutId" = $1::uuid AND rc."clusterName" = ANY($2::text[]) AND rc."state" = 'running' AND rc."writtenAt" IS NULL
        AND rc."claimedBy" IS NULL AND rc."clusterId" IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM "Cluster" c WHERE c."id" = rc."clusterId" AND c."name" = rc."clusterName")
      RETURNING rc."clusterName"`,
    [rolloutId, names, storedTime(at)],
  );
  return rows.map((r) => r[0]!);
}

/** SQL: a step's write is on the wire (claimed by a writer whose lease has not run out). */
export const IN_FLIGHT = (alias: string, leaseStart: string) =>
  `(${alias}."claimedBy" IS NOT NULL AND ${alias}."claimedAt" >= ${leaseStart})`;

/**
 * SQL: a step a brake left to follow: running in a rollout that is no longer running (aborted, or
 * completed while it ran), or skipped after its write was sent and not yet seen to its end.
 */
export const BRAKED_TO_FOLLOW = (alias: string) =>
  `(${alias}."state" = 'running' OR (${alias}."state" = 'skipped' AND ${alias}."outcome" IS NULL AND ${alias}."attempts" > 0))`;

/** Records what a skipped step's cluster showed at its end (succeeded, failed or unconfirmed), with its words. */
export async function recordSkippedOutcome(rolloutId: string, name: string, outcome: string, shown: string | null): Promise<void> {
  await getDb().$executeRawUnsafe(
    `UPDATE "RolloutCluster" SET "outcome" = $3,
            "reason" = left(coalesce("reason", 'skipped') || '; after the skip the cluster showed: ' || $4, 32768)
      WHERE "rolloutId" = $1::uuid AND "clusterName" = $2 AND "state" = 'skipped' AND "outcome" IS NULL`,
    rolloutId,
    name,
    outcome,
    shown ?? outcome,
  );
}

/**
 * Whether a written step's follow-up write (a bundle's missing PinnedImageSets, the start of its
 * upgrade, its unpin) may be sent now: the rollout (by id, or by number as an application records
 * its rollout) and the step on `name` are both running, read in one statement that takes a share
 * lock on the rollout's row, as claimWrite does, so it is ordered with abort, pause and skip.
 */
export async function mayWriteFollowUp(rollout: { id: string } | { number: number }, name: string): Promise<boolean> {
  const byId = "id" in rollout;
  const rows = await queryText(
    `SELECT 1 FROM "Rollout" r JOIN "RolloutCluster" rc ON rc."rolloutId" = r."id"
      WHERE ${byId ? `r."id" = $1::uuid` : `r."number" = $1::int`} AND r."status" = 'running'
        AND rc."clusterName" = $2 AND rc."state" = 'running'
      FOR SHARE OF r`,
    [byId ? rollout.id : String(rollout.number), name],
  );
  return rows.length > 0;
}
