/**
 * Saving a plan: the rollout, its waves and its clusters (included and excluded) in one transaction
 * with its audit event, under the lock that keeps a cluster in one active rollout at a time.
 */
import { clipText } from "../domain/clip";
import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { ACTIVE_STATUSES, recordOf, type RolloutRecord } from "./rolloutRecords";

export type NewRollout = {
  kind: RolloutRecord["kind"];
  request: object;
  createdById: string;
  createdBy: string;
  estimateMs: number;
  waves: { name: string; kind: string; mandatory: boolean; clusters: string[] }[];
  excluded: { cluster: string; reason: string }[];
};

export class ClusterInActiveRolloutError extends Error {}
/** An included cluster is no longer registered: its step could not check it still writes to the cluster planned for. */
export class ClusterRemovedWhilePlanningError extends Error {}

/**
 * Saves a plan with its clusters. The check that none of them is in another active rollout is
 * repeated under a lock, so two plans made at once over the same clusters cannot both be saved.
 */
export async function createRollout(plan: NewRollout, audit: AuditInput): Promise<RolloutRecord> {
  const included = plan.waves.flatMap((w) => w.clusters);
  return getDb().$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('fleetskew.rollouts.plan'))`);
      const [held] = await tx.$queryRawUnsafe<{ clusterName: string; number: number }[]>(
        `SELECT rc."clusterName", r."number" FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId"
          WHERE rc."clusterName" = ANY($1::text[]) AND rc."state" <> 'excluded' AND r."status" = ANY($2::text[]) LIMIT 1`,
        included,
        ACTIVE_STATUSES,
      );
      if (held) throw new ClusterInActiveRolloutError(`${held.clusterName} is already in rollout ${held.number}, which has not ended`);
      const ids = new Map(
        (await tx.cluster.findMany({ where: { name: { in: included } }, select: { id: true, name: true } })).map((c) => [c.name, c.id]),
      );
      const gone = included.filter((name) => !ids.has(name));
      if (gone.length)
        throw new ClusterRemovedWhilePlanningError(
          `${gone.join(", ")} ${gone.length > 1 ? "were" : "was"} removed while the rollout was being planned; plan it again`,
        );
      const row = await tx.rollout.create({
        data: {
          kind: plan.kind,
          status: "awaiting-approval",
          request: plan.request,
          createdById: plan.createdById,
          createdBy: plan.createdBy,
          estimateMs: BigInt(Math.round(plan.estimateMs)),
        },
      });
      await tx.rolloutWave.createMany({
        data: plan.waves.map((w, index) => ({ rolloutId: row.id, index, name: w.name, kind: w.kind, mandatory: w.mandatory })),
      });
      await tx.rolloutCluster.createMany({
        data: [
          ...plan.waves.flatMap((w, index) =>
            w.clusters.map((name) => ({
              rolloutId: row.id,
              clusterName: name,
              clusterId: ids.get(name)!,
              wave: index,
              state: "pending",
            })),
          ),
          ...plan.excluded.map((e) => ({
            rolloutId: row.id,
            clusterName: e.cluster,
            wave: -1,
            state: "excluded",
            reason: clipText(e.reason),
          })),
        ],
      });
      await tx.auditEvent.create({ data: auditRow({ ...audit, details: { ...audit.details, rollout: row.number } }) });
      return recordOf(row);
    },
    { timeout: 60_000 },
  );
}
