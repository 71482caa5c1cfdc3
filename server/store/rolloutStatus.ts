/**
 * A rollout's status changes (approve, start, pause, resume, abort, complete). Every change is
 * conditional on the status it changes (two approvers, or a pause racing the runner, give one
 * change), counts the writes still in flight under the rollout's row lock, and carries its audit
 * event in the same transaction.
 */
import { clipText } from "../domain/clip";
import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import { storedTime } from "./fleet";
import { CLAIM_LEASE_MS, IN_FLIGHT } from "./rolloutClaims";
import { recordOf, type RolloutRecord, type RolloutStatus } from "./rolloutRecords";

/**
 * Moves a rollout from one of `from` to `to`, with its audit event, or returns null when it is no
 * longer in one of `from` (someone else acted first). `check` may refuse (by throwing) from the
 * current row, under its lock: the four-eyes rule lives there.
 */
export async function changeRolloutStatus(
  id: string,
  from: readonly RolloutStatus[],
  to: RolloutStatus,
  change: { reason?: string | null; approvedBy?: string; finished?: boolean },
  audit: AuditInput | ((current: RolloutRecord) => AuditInput),
  check: (current: RolloutRecord) => void = () => undefined,
): Promise<(RolloutRecord & { inFlight: number }) | null> {
  return getDb().$transaction(async (tx) => {
    const [locked] = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT "id" FROM "Rollout" WHERE "id" = $1::uuid FOR UPDATE`, id);
    if (!locked) return null;
    const current = recordOf(await tx.rollout.findUniqueOrThrow({ where: { id } }));
    if (!from.includes(current.status)) return null;
    check(current);
    const now = new Date();
    const row = await tx.rollout.update({
      where: { id },
      data: {
        status: to,
        statusReason: clipText(change.reason ?? null),
        ...(change.approvedBy ? { approvedBy: change.approvedBy, approvedAt: now } : {}),
        ...(change.finished ? { finishedAt: now } : {}),
      },
    });
    // Under the row lock no new write can be claimed (server/store/rolloutClaims.ts): the writes
    // claimed before it are all that may still go out, and they are counted here.
    const [{ inFlight } = { inFlight: 0 }] = await tx.$queryRawUnsafe<{ inFlight: number }[]>(
      `SELECT count(*)::int AS "inFlight" FROM "RolloutCluster" rc WHERE rc."rolloutId" = $1::uuid AND ${IN_FLIGHT("rc", "$2::timestamp")}`,
      id,
      storedTime(new Date(now.getTime() - CLAIM_LEASE_MS)),
    );
    // An aborted rollout's steps that were started but never sent end here as skipped; the ones sent are followed.
    if (to === "aborted")
      await tx.$executeRawUnsafe(
        `UPDATE "RolloutCluster" SET "state" = 'skipped', "finishedAt" = $2::timestamp, "reason" = 'not written: the rollout was aborted first'
          WHERE "rolloutId" = $1::uuid AND "state" = 'running' AND "attempts" = 0 AND "claimedBy" IS NULL`,
        id,
        storedTime(now),
      );
    const event = typeof audit === "function" ? audit(current) : audit;
    await tx.auditEvent.create({
      data: auditRow({ ...event, details: { ...event.details, rollout: current.number, ...(inFlight ? { inFlight } : {}) } }),
    });
    return { ...recordOf(row), inFlight };
  });
}
