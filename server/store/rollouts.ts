import { clipText } from "../domain/clip";
import type { CandidateFacts } from "../domain/rollouts/eligibility";
import type { ClusterState } from "../domain/rollouts/progress";
import type { RolloutRequest } from "../domain/rollouts/request";
import { decodeStoredRequest } from "../domain/rollouts/storedRequest";
import type { MaintenanceWindow } from "../domain/rollouts/windows";
import { decodeFrozenWindow } from "./rolloutWindows";
import { auditRow, type AuditInput } from "./audit";
import { getDb } from "./db";
import type { Prisma } from "./generated/prisma/client";
import { OFFLINE, queryText, staleWhen, storedTime } from "./fleet";
import { where, type FleetFilter } from "./fleetWindow";
import { BRAKED_TO_FOLLOW, CLAIM_LEASE_MS, IN_FLIGHT } from "./rolloutClaims";
import { UPDATE_GATE_KEYS, updateGatePartsDecoder, updateGatePartsSql } from "./updateGateParts";

/**
 * Rollouts, their waves and their clusters. Every change of a rollout's status is conditional on
 * the status it changes (two approvers, or a pause racing the runner, give one change) and carries
 * its audit event in the same transaction.
 */
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

const asArray = (expr: string) => `CASE WHEN jsonb_typeof(${expr}) = 'array' THEN ${expr} ELSE '[]'::jsonb END`;

/**
 * What decides whether each selected cluster may enter a rollout, read in one query: the fleet
 * row's summary, the update lists of its ClusterVersion, the parts of its snapshot the update gates
 * read (to judge them for the plan's target) and whether another rollout holds it.
 * `names` chooses clusters by name; otherwise the fleet view's filter does.
 */
export async function candidateFacts(
  selection: { filter: FleetFilter } | { names: string[] },
  staleBefore: Date,
): Promise<CandidateFacts[]> {
  const values: unknown[] = [storedTime(staleBefore)];
  const condition =
    "names" in selection ? `WHERE c."name" = ANY($${values.push(selection.names)}::text[])` : where(selection.filter, values, staleBefore);
  const active = `$${values.push(ACTIVE_STATUSES)}::text[]`;
  const version = `snap.version`;
  const rows = await queryText(
    `SELECT c."name", c."labels", ${OFFLINE}, ${staleWhen("$1")}, c."lastContactError", s."version",
            s."readinessTarget", coalesce(s."readinessStatus", 'unknown'), s."readinessBlocker",
            ${asArray(`${version}->'availableUpdates'`)},
            (SELECT coalesce(jsonb_agg(jsonb_build_object('version', u->>'version', 'risks',
                      (SELECT coalesce(jsonb_agg(jsonb_build_object('name', r->>'name')), '[]'::jsonb)
                         FROM jsonb_array_elements(${asArray(`u->'risks'`)}) r))), '[]'::jsonb)
               FROM jsonb_array_elements(${asArray(`${version}->'conditionalUpdates'`)}) u),
            coalesce(snap.enforcement->>'served' = 'true', false),
            (SELECT r."number"::text FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId"
              WHERE rc."clusterName" = c."name" AND rc."state" <> 'excluded' AND r."status" = ANY(${active}) LIMIT 1),
            ${updateGatePartsSql("snap")}
       FROM "Cluster" c LEFT JOIN "ClusterState" s ON s."clusterId" = c."id"
       -- Each key taken out of the snapshot once: every -> on the column itself would read the whole snapshot again.
       LEFT JOIN LATERAL jsonb_to_record(CASE WHEN jsonb_typeof(s."snapshot") = 'object' THEN s."snapshot" END)
         AS snap(enforcement jsonb, ${UPDATE_GATE_KEYS}) ON true
       ${condition}
      ORDER BY c."name"`,
    values,
  );
  const gatesOf = updateGatePartsDecoder();
  return rows.map((r) => ({
    name: r[0]!,
    labels: JSON.parse(r[1] ?? "{}") as Record<string, string>,
    offline: r[2] === "t",
    stale: r[3] === "t",
    lastContactError: r[4] ?? null,
    version: r[5] ?? null,
    readinessTarget: r[6] ?? null,
    readinessStatus: r[7]!,
    readinessBlocker: r[8] ?? null,
    availableUpdates: (JSON.parse(r[9] ?? "[]") as unknown[]).filter((v): v is string => typeof v === "string"),
    conditionalUpdates: (JSON.parse(r[10] ?? "[]") as { version: string | null; risks: { name: string | null }[] }[])
      .filter((u) => typeof u.version === "string")
      .map((u) => ({ version: u.version!, risks: u.risks.filter((k) => typeof k.name === "string").map((k) => ({ name: k.name! })) })),
    acknowledgementServed: r[11] === "t",
    activeRollout: r[12] ?? null,
    gates: gatesOf(r[13]),
  }));
}

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
              clusterId: ids.get(name) ?? null,
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

export async function findRollout(idOrNumber: string): Promise<RolloutRecord | null> {
  const number = /^\d{1,9}$/.test(idOrNumber) ? Number(idOrNumber) : null;
  const isUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(idOrNumber);
  if (number === null && !isUuid) return null;
  const row = await getDb().rollout.findFirst({ where: number !== null ? { number } : { id: idOrNumber } });
  return row ? recordOf(row) : null;
}

export async function listRollouts(limit = 200): Promise<RolloutRecord[]> {
  return (await getDb().rollout.findMany({ orderBy: { number: "desc" }, take: limit })).map(recordOf);
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

/** How many clusters are in each state, per wave (-1: excluded): the picture of the waves, in one query. */
export async function rolloutCounts(rolloutId: string): Promise<{ wave: number; state: string; count: number }[]> {
  const rows = await getDb().rolloutCluster.groupBy({ by: ["wave", "state"], where: { rolloutId }, _count: { _all: true } });
  return rows.map((r) => ({ wave: r.wave, state: r.state, count: r._count._all }));
}

/** One page of a rollout's clusters, in wave then name order, after `after` (`wave:name`). */
export async function rolloutClusters(
  rolloutId: string,
  options: { state?: string; after?: { wave: number; name: string }; limit: number },
): Promise<RolloutClusterRecord[]> {
  const rows = await getDb().rolloutCluster.findMany({
    where: {
      rolloutId,
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

/** Marks a wave released by `by`, with its audit event; false when it was released already. */
export async function releaseWave(rolloutId: string, index: number, by: string, audit: AuditInput): Promise<boolean> {
  return getDb().$transaction(async (tx) => {
    const result = await tx.rolloutWave.updateMany({
      where: { rolloutId, index, releasedAt: null },
      data: { releasedAt: new Date(), releasedBy: by },
    });
    if (result.count !== 1) return false;
    const { number } = await tx.rollout.findUniqueOrThrow({ where: { id: rolloutId }, select: { number: true } });
    await tx.auditEvent.create({ data: auditRow({ ...audit, details: { ...audit.details, rollout: number, wave: index } }) });
    return true;
  });
}

/** `inFlight`: of the clusters skipped, how many had a write on the wire when the skip committed. */
export type ClusterActionResult = {
  changed: string[];
  /** Clusters named in the decision and left alone, with their state now (null: not in this rollout). */
  leftAlone: { cluster: string; state: RolloutClusterState | null }[];
  number: number;
  inFlight: number;
};

/** Named clusters, only while in `state` when given (the state the person saw them in); or every cluster in a state. */
export type ClusterSelection = { names: string[]; state?: RolloutClusterState } | { state: RolloutClusterState };

/**
 * A person's decision about some of a rollout's clusters, with its audit event, in one transaction
 * under the rollout's row lock (the runner's changes are conditional on the state, so a step the
 * runner moved on meanwhile is left alone and not counted as changed).
 *
 * - skip: the cluster ends as skipped; a step already sent stays sent and is followed to its end (its outcome).
 * - retry: a failed cluster goes back to pending, its step's times cleared, so the runner writes it again.
 * - include: an excluded cluster joins the last wave, with who included it and why; a cluster held
 *   by another rollout that has not ended cannot be included.
 */
export async function decideRolloutClusters(
  rolloutId: string,
  action: "skip" | "retry" | "include",
  selection: ClusterSelection,
  options: { allowedStatuses: readonly RolloutStatus[]; by: string; why: string },
  audit: (current: RolloutRecord, changed: string[]) => AuditInput,
): Promise<ClusterActionResult | { refused: string }> {
  return getDb().$transaction(
    async (tx) => {
      if (action === "include") await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext('fleetskew.rollouts.plan'))`);
      const [locked] = await tx.$queryRawUnsafe<{ id: string }[]>(`SELECT "id" FROM "Rollout" WHERE "id" = $1::uuid FOR UPDATE`, rolloutId);
      if (!locked) return { refused: "no such rollout" };
      const current = recordOf(await tx.rollout.findUniqueOrThrow({ where: { id: rolloutId } }));
      if (!options.allowedStatuses.includes(current.status)) return { refused: `rollout ${current.number} is ${current.status}` };
      const from: Record<typeof action, readonly RolloutClusterState[]> = {
        skip: ["pending", "waiting-window", "running", "failed"],
        retry: ["failed"],
        include: ["excluded"],
      };
      const states = selection.state ? from[action].filter((s) => s === selection.state) : from[action];
      const rows = await tx.rolloutCluster.findMany({
        where: { rolloutId, ...("names" in selection ? { clusterName: { in: selection.names } } : {}), state: { in: [...states] } },
        select: { clusterName: true },
        orderBy: { clusterName: "asc" },
      });
      const names = rows.map((r) => r.clusterName);
      let inFlight = 0;
      if (action === "include" && names.length) {
        const [held] = await tx.$queryRawUnsafe<{ clusterName: string; number: number }[]>(
          `SELECT rc."clusterName", r."number" FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId"
            WHERE rc."clusterName" = ANY($1::text[]) AND rc."state" <> 'excluded' AND r."status" = ANY($2::text[])
              AND r."id" <> $3::uuid LIMIT 1`,
          names,
          ACTIVE_STATUSES,
          rolloutId,
        );
        if (held) return { refused: `${held.clusterName} is in rollout ${held.number}, which has not ended` };
        const known = await tx.cluster.findMany({ where: { name: { in: names } }, select: { id: true, name: true } });
        const gone = names.find((n) => !known.some((k) => k.name === n));
        if (gone) return { refused: `${gone} is no longer registered` };
        let last = await tx.rolloutWave.findFirst({ where: { rolloutId }, orderBy: { index: "desc" } });
        last ??= await tx.rolloutWave.create({ data: { rolloutId, index: 0, name: "Included by hand", kind: "batch", mandatory: false } });
        for (const k of known)
          await tx.rolloutCluster.updateMany({
            where: { rolloutId, clusterName: k.name, state: "excluded" },
            data: { state: "pending", wave: last.index, clusterId: k.id, includedBy: options.by, includedWhy: options.why, reason: null },
          });
      } else if (action === "skip" && names.length) {
        // Under the rollout's row lock no new write is claimed: the skipped clusters' writes claimed
        // before it are the only ones that may still go out. Those, and the ones already sent, are
        // followed to their end (their `outcome`); a failed one has ended already.
        const [{ n } = { n: 0 }] = await tx.$queryRawUnsafe<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM "RolloutCluster" rc
            WHERE rc."rolloutId" = $1::uuid AND rc."clusterName" = ANY($2::text[]) AND ${IN_FLIGHT("rc", "$3::timestamp")}`,
          rolloutId,
          names,
          storedTime(new Date(Date.now() - CLAIM_LEASE_MS)),
        );
        inFlight = n;
        const skipped = {
          state: "skipped",
          reason: `skipped by ${options.by}: ${options.why}`,
          finishedAt: new Date(),
          windowOpensAt: null,
        };
        await tx.rolloutCluster.updateMany({
          where: { rolloutId, clusterName: { in: names }, state: { in: states.filter((s) => s === "failed") } },
          data: { ...skipped, outcome: "failed" },
        });
        await tx.rolloutCluster.updateMany({
          where: { rolloutId, clusterName: { in: names }, state: { in: states.filter((s) => s !== "failed") } },
          data: { ...skipped, nextAttemptAt: null },
        });
      } else if (action === "retry" && names.length) {
        // A person's retry is a new step: its attempts are counted afresh.
        await tx.rolloutCluster.updateMany({
          where: { rolloutId, clusterName: { in: names }, state: { in: [...states] } },
          data: {
            state: "pending",
            reason: null,
            startedAt: null,
            writtenAt: null,
            finishedAt: null,
            windowOpensAt: null,
            attempts: 0,
            nextAttemptAt: null,
            outcome: null,
          },
        });
      }
      if (names.length) {
        const event = audit(current, names);
        await tx.auditEvent.create({
          data: auditRow({
            ...event,
            details: { ...event.details, rollout: current.number, clusters: names.slice(0, 1000), ...(inFlight ? { inFlight } : {}) },
          }),
        });
      }
      return { changed: names, leftAlone: await leftAloneOf(tx, rolloutId, selection, names), number: current.number, inFlight };
    },
    { timeout: 60_000 },
  );
}

/** The clusters a decision named and did not change, with the state each is in now. */
async function leftAloneOf(tx: Prisma.TransactionClient, rolloutId: string, selection: ClusterSelection, changed: string[]) {
  if (!("names" in selection)) return [];
  const done = new Set(changed);
  const rest = [...new Set(selection.names)].filter((n) => !done.has(n));
  if (!rest.length) return [];
  const rows = await tx.rolloutCluster.findMany({
    where: { rolloutId, clusterName: { in: rest } },
    select: { clusterName: true, state: true },
  });
  const stateOf = new Map(rows.map((r) => [r.clusterName, r.state as RolloutClusterState]));
  return rest.sort().map((cluster) => ({ cluster, state: stateOf.get(cluster) ?? null }));
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

/** One rollout that has not ended, with its clusters counted per wave and state, as /metrics reports it. */
export type ActiveRolloutCounts = {
  number: number;
  kind: string;
  status: string;
  /** As the plan stored them: `{count}` or `{percent}`, and the soak in ms. */
  maxFailures: unknown;
  minSuccessTime: unknown;
  /** The rollout's waves, in order (a wave may have no cluster). */
  waves: number[];
  groups: { wave: number; state: string; count: number; lastFinishedMs: number }[];
};

/**
 * The rollouts that have not ended (running first, then paused, then awaiting approval; oldest
 * first), at most `limit` of them, each with its clusters counted per wave and state, and how many
 * there are in all. Two queries, whose cost is the clusters of those rollouts (read through the
 * `(rolloutId, state)` index), never the fleet's or the finished rollouts': the rollouts with their
 * waves once each, then their counts. (One joined query repeated each rollout's waves on every
 * count's row: waves × counts, 600 MB sorted on disk for a rollout of 10,000 one-cluster waves.)
 */
export async function activeRolloutCounts(limit: number): Promise<{ total: number; rollouts: ActiveRolloutCounts[] }> {
  const order = ["running", "paused", "awaiting-approval"] satisfies RolloutStatus[];
  const heads = await queryText(
    `SELECT r."id", r."number", r."kind", r."status", count(*) OVER (), r."request"->'strategy'->'maxFailures',
            r."request"->'strategy'->'minSuccessTime',
            (SELECT array_to_json(coalesce(array_agg(w."index" ORDER BY w."index"), '{}')) FROM "RolloutWave" w WHERE w."rolloutId" = r."id")
       FROM "Rollout" r WHERE r."status" = ANY($1::text[])
      ORDER BY array_position($1::text[], r."status"), r."number" LIMIT $2`,
    [order, limit],
  );
  if (!heads.length) return { total: 0, rollouts: [] };
  const byId = new Map<string, ActiveRolloutCounts>();
  for (const r of heads)
    byId.set(r[0]!, {
      number: Number(r[1]),
      kind: r[2]!,
      status: r[3]!,
      maxFailures: r[5] ? JSON.parse(r[5]) : null,
      minSuccessTime: r[6] ? JSON.parse(r[6]) : null,
      waves: JSON.parse(r[7] ?? "[]") as number[],
      groups: [],
    });
  const counts = await queryText(
    `SELECT rc."rolloutId", rc."wave", rc."state", count(*), coalesce(EXTRACT(EPOCH FROM max(rc."finishedAt")) * 1000, 0)::float8
       FROM "RolloutCluster" rc WHERE rc."rolloutId" = ANY($1::uuid[])
      GROUP BY rc."rolloutId", rc."wave", rc."state"`,
    [[...byId.keys()]],
  );
  for (const c of counts)
    byId.get(c[0]!)?.groups.push({ wave: Number(c[1]), state: c[2]!, count: Number(c[3]), lastFinishedMs: Number(c[4]) });
  return { total: Number(heads[0]![4]), rollouts: [...byId.values()] };
}
