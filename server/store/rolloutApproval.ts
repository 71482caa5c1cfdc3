/**
 * A rollout's plan digest, and its approval: of that digest only. The digest is computed where the
 * plan is (the request, the waves, one line per cluster), so the rollout's view and the approval
 * compute the same text; the approval compares it under the rollout's row lock and freezes each
 * cluster's window from the very rows the digest was computed over.
 */
import { createHash } from "node:crypto";
import { planDigest } from "../domain/rollouts/digest";
import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import type { Prisma } from "./generated/prisma/client";
import { recordOf, type RolloutRecord } from "./rolloutRecords";
import { freezeWindows } from "./rolloutWindows";

type Db = Prisma.TransactionClient | ReturnType<typeof getDb>;

/**
 * One line per cluster: its wave, name, the cluster id frozen in the plan, whether it is written
 * (excluded and skipped clusters are not), and its value of the windows' label ($2; `-` without one).
 */
const LINE = `rc."wave"::text || E'\\t' || rc."clusterName" || E'\\t' || coalesce(rc."clusterId"::text, '') || E'\\t' ||
  CASE WHEN rc."state" IN ('excluded', 'skipped') THEN rc."state" ELSE 'included' END || E'\\t' ||
  CASE WHEN $2::text IS NULL THEN '' WHEN c."labels" ? $2::text THEN '=' || (c."labels"->>$2::text) ELSE '-' END`;
const FROM = `FROM "RolloutCluster" rc LEFT JOIN "Cluster" c ON c."id" = rc."clusterId" WHERE rc."rolloutId" = $1::uuid`;
const ORDER = `rc."wave", rc."clusterName" COLLATE "C"`;

const labelOf = (r: RolloutRecord) => r.request.windows?.label ?? null;

async function wavesOf(db: Db, rolloutId: string) {
  return db.rolloutWave.findMany({ where: { rolloutId }, orderBy: { index: "asc" } });
}

/** The digest of a rollout's plan as it is now: one query over its clusters, hashed by Postgres. */
export async function rolloutPlanDigest(rollout: RolloutRecord, db: Db = getDb()): Promise<string> {
  const [[row], waves] = await Promise.all([
    db.$queryRawUnsafe<{ digest: string }[]>(
      `SELECT encode(sha256(convert_to(coalesce(string_agg(${LINE}, E'\\n' ORDER BY ${ORDER}), ''), 'UTF8')), 'hex') AS digest ${FROM}`,
      rollout.id,
      labelOf(rollout),
    ),
    wavesOf(db, rollout.id),
  ]);
  return planDigest({ request: rollout.request, waves, clustersDigest: row!.digest });
}

export type Approval =
  | { approved: RolloutRecord; digest: string }
  | { refused: "status"; current: RolloutRecord }
  | { refused: "digest"; current: RolloutRecord; digest: string };

/**
 * Approves a rollout waiting for approval when its plan's digest is one of `expected`: under the
 * rollout's row lock, with each cluster's window frozen and the audit event (which names the
 * digest) in the same transaction. `check` may refuse by throwing (the four-eyes rule).
 */
export async function approveRollout(
  id: string,
  expected: readonly string[],
  change: { approvedBy: string; reason: string },
  audit: (current: RolloutRecord, digest: string) => AuditInput,
  check: (current: RolloutRecord) => void,
): Promise<Approval | null> {
  return getDb().$transaction(
    async (tx) => {
      const [locked] = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT "id" FROM "Rollout" WHERE "id" = $1::uuid FOR UPDATE`, id);
      if (!locked) return null;
      const current = recordOf(await tx.rollout.findUniqueOrThrow({ where: { id } }));
      if (current.status !== "awaiting-approval") return { refused: "status", current };
      check(current);
      const label = labelOf(current);
      // The lines and the label values in one statement: what is frozen is what was hashed.
      const rows = await tx.$queryRawUnsafe<{ name: string; state: string; line: string; value: string | null }[]>(
        `SELECT rc."clusterName" AS name, rc."state" AS state, ${LINE} AS line,
                CASE WHEN $2::text IS NULL THEN NULL ELSE c."labels"->>$2::text END AS value
           ${FROM} ORDER BY ${ORDER}`,
        id,
        label,
      );
      const clustersDigest = createHash("sha256")
        .update(rows.map((r) => r.line).join("\n"), "utf8")
        .digest("hex");
      const digest = planDigest({ request: current.request, waves: await wavesOf(tx, id), clustersDigest });
      if (!expected.includes(digest)) return { refused: "digest", current, digest };
      const now = new Date();
      await freezeWindows(
        tx,
        id,
        current.request.windows,
        rows.filter((r) => r.state !== "excluded" && r.state !== "skipped").map((r) => ({ name: r.name, labelValue: r.value })),
        now,
      );
      const row = await tx.rollout.update({
        where: { id },
        data: { status: "running", statusReason: change.reason, approvedBy: change.approvedBy, approvedAt: now, approvedDigest: digest },
      });
      const event = audit(current, digest);
      await tx.auditEvent.create({ data: auditRow({ ...event, details: { ...event.details, rollout: current.number, digest } }) });
      return { approved: recordOf(row), digest };
    },
    { timeout: 60_000 },
  );
}
