import { ACK_STATUSES, type AckStatus } from "../domain/acknowledgements";
import { clipText } from "../domain/clip";
import { auditRow, type AuditInput } from "./audit";
import type { Reach } from "../domain/grants";
import { getDb } from "./db";
import { clusterIdsInReach } from "./reach";
import type { Prisma } from "./generated/prisma/client";

/**
 * Manual boot-image acknowledgement requests. A decision is taken under a row lock, so two
 * approvers clicking at once produce one decision; every change carries its audit event.
 */
export { ACK_STATUSES, type AckStatus };

export type AcknowledgementRecord = {
  id: string;
  clusterId: string;
  cluster: string;
  mode: "OCPVersion" | "RHCOSVersion" | "None";
  ocpVersion: string | null;
  rhcosVersion: string | null;
  evidence: string;
  machineSets: string[];
  status: AckStatus;
  requestedById: string;
  requestedBy: string;
  requestedAt: string;
  expiresAt: string;
  baseline: unknown;
  decidedBy: string | null;
  decidedAt: string | null;
  comment: string | null;
  result: string | null;
  appliedAt: string | null;
  verifiedAt: string | null;
};

const include = { cluster: { select: { name: true } } } as const;
type Row = Prisma.AcknowledgementGetPayload<{ include: typeof include }>;
const iso = (d: Date | null) => d?.toISOString() ?? null;

const recordOf = (r: Row): AcknowledgementRecord => ({
  id: r.id,
  clusterId: r.clusterId,
  cluster: r.cluster.name,
  mode: r.mode as AcknowledgementRecord["mode"],
  ocpVersion: r.ocpVersion,
  rhcosVersion: r.rhcosVersion,
  evidence: r.evidence,
  machineSets: r.machineSets as string[],
  status: r.status as AckStatus,
  requestedById: r.requestedById,
  requestedBy: r.requestedBy,
  requestedAt: r.requestedAt.toISOString(),
  expiresAt: r.expiresAt.toISOString(),
  baseline: r.baseline,
  decidedBy: r.decidedBy,
  decidedAt: iso(r.decidedAt),
  comment: r.comment,
  result: r.result,
  appliedAt: iso(r.appliedAt),
  verifiedAt: iso(r.verifiedAt),
});

export type NewAcknowledgement = {
  clusterId: string;
  mode: string;
  ocpVersion: string | null;
  rhcosVersion: string | null;
  evidence: string;
  machineSets: string[];
  requestedById: string;
  requestedBy: string;
  expiresAt: Date;
  baseline: unknown;
  /** A rollout's acknowledgement is approved with its rollout: it starts as applying, decided already. */
  rollout?: { id: string; approvedBy: string; comment: string };
};

export async function insertAcknowledgement(input: NewAcknowledgement, audit: AuditInput): Promise<AcknowledgementRecord> {
  return getDb().$transaction(async (tx) => {
    const { rollout, ...fields } = input;
    const row = await tx.acknowledgement.create({
      data: {
        ...fields,
        status: rollout ? "applying" : "pending",
        baseline: (input.baseline ?? undefined) as Prisma.InputJsonValue | undefined,
        ...(rollout ? { rolloutId: rollout.id, decidedBy: rollout.approvedBy, decidedAt: new Date(), comment: rollout.comment } : {}),
      },
      include,
    });
    await tx.auditEvent.create({ data: auditRow({ ...audit, details: { ...audit.details, request: row.id } }) });
    return recordOf(row);
  });
}

/** The acknowledgement a rollout made for one cluster, if it made one. */
export async function findRolloutAcknowledgement(rolloutId: string, clusterId: string): Promise<AcknowledgementRecord | null> {
  const row = await getDb().acknowledgement.findFirst({ where: { rolloutId, clusterId }, include, orderBy: { requestedAt: "desc" } });
  return row ? recordOf(row) : null;
}

export async function findAcknowledgement(id: string): Promise<AcknowledgementRecord | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const row = await getDb().acknowledgement.findUnique({ where: { id }, include });
  return row ? recordOf(row) : null;
}

/** Newest first, at most 500; `reach` keeps those about clusters in it (the store's one reach condition). */
export async function listAcknowledgements(
  filter: { statuses?: AckStatus[]; clusterId?: string; reach?: Reach } = {},
): Promise<AcknowledgementRecord[]> {
  const inReach = filter.reach && filter.reach.kind !== "fleet" ? await clusterIdsInReach(filter.reach) : null;
  const rows = await getDb().acknowledgement.findMany({
    where: {
      ...(inReach ? { AND: [{ clusterId: { in: inReach } }] } : {}),
      ...(filter.statuses ? { status: { in: [...filter.statuses] } } : {}),
      ...(filter.clusterId ? { clusterId: filter.clusterId } : {}),
    },
    orderBy: { requestedAt: "desc" },
    take: 500,
    include,
  });
  return rows.map(recordOf);
}

export type AckChange = Partial<{
  status: AckStatus;
  decidedBy: string;
  decidedAt: Date;
  comment: string | null;
  result: string | null;
  appliedAt: Date;
  verifiedAt: Date;
}>;

/**
 * The audit event of a change the console makes by itself (no person's event given): the request's
 * status moving (applied, failed) or its verification. Other changes (wording of the result) are not events.
 */
function consoleChangeEvent(current: AcknowledgementRecord, change: AckChange): AuditInput | null {
  const moved = change.status !== undefined && change.status !== current.status;
  const verified = change.verifiedAt !== undefined && !current.verifiedAt;
  if (!moved && !verified) return null;
  const what = moved ? `is now ${change.status}` : "was verified: the MCO took the value";
  return {
    actor: null,
    action: moved ? "acknowledgement.status" : "acknowledgement.verify",
    targetType: "cluster",
    targetId: current.cluster,
    outcome: change.status === "failed" ? "failure" : "success",
    summary: `acknowledgement request ${current.id.slice(0, 8)} for ${current.cluster} ${what}`,
    details: { request: current.id, from: current.status, to: change.status ?? current.status, result: change.result ?? current.result },
  };
}

/**
 * Changes a request under a row lock. `decide` sees the current record and returns the change
 * and its audit event, or throws (e.g. not pending any more); nothing is written then. A status
 * change or verification without a person's event is recorded as the console's own.
 */
export async function changeAcknowledgement(
  id: string,
  decide: (current: AcknowledgementRecord) => { change: AckChange; audit?: AuditInput },
): Promise<AcknowledgementRecord | null> {
  return getDb().$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT "id" FROM "Acknowledgement" WHERE "id" = ${id}::uuid FOR UPDATE`;
    if (locked.length === 0) return null;
    const current = recordOf((await tx.acknowledgement.findUnique({ where: { id }, include }))!);
    const { change, audit } = decide(current);
    // The result carries the cluster's answer or the MCO's words: clipped where it is stored (server/domain/clip.ts).
    const data = change.result === undefined ? change : { ...change, result: clipText(change.result) };
    const row = await tx.acknowledgement.update({ where: { id }, data, include });
    const event = audit ?? consoleChangeEvent(current, data);
    if (event) await tx.auditEvent.create({ data: auditRow(event) });
    return recordOf(row);
  });
}

/** Marks pending requests past their expiry as expired, each with an audit event; returns them. */
export async function expireAcknowledgements(now: Date): Promise<AcknowledgementRecord[]> {
  const due = await getDb().acknowledgement.findMany({ where: { status: "pending", expiresAt: { lt: now } }, select: { id: true } });
  const expired: AcknowledgementRecord[] = [];
  for (const { id } of due) {
    const record = await changeAcknowledgement(id, (current) =>
      current.status !== "pending"
        ? { change: {} }
        : {
            change: { status: "expired", result: "No decision within 7 days; request a new acknowledgement if it is still needed." },
            audit: {
              actor: null,
              action: "acknowledgement.expire",
              targetType: "cluster",
              targetId: current.cluster,
              summary: `acknowledgement request by ${current.requestedBy} for ${current.cluster} expired undecided`,
              details: { request: current.id },
            },
          },
    );
    if (record?.status === "expired") expired.push(record);
  }
  return expired;
}
