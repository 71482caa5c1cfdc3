import { auditSummary } from "../domain/auditSummary";
import { clipText } from "../domain/clip";
import type { Prisma } from "./generated/prisma/client";
import type { Reach } from "../domain/grants";
import { getDb, getPool } from "./db";
import { adder, clusterInReachSql, reachSql } from "./scope";

export type AuditInput = {
  actor: string | null;
  /** The role the actor acted with; null for the system and for failed sign-ins. */
  role?: string | null;
  action: string;
  /** One sentence a person reads in the audit log; derived from the action and target when absent. */
  summary?: string;
  targetType?: string;
  targetId?: string;
  outcome?: "success" | "failure" | "denied";
  details?: Record<string, unknown>;
  ip?: string | null;
  /** The grant a write on a cluster was allowed by ("technician@clusterSet=edge-emea"): recorded as details.grant. */
  grant?: string;
};

export type AuditRecord = {
  id: string;
  at: string;
  actor: string | null;
  role: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  summary: string;
  outcome: NonNullable<AuditInput["outcome"]>;
  details: unknown;
  ip: string | null;
};

/**
 * The audit row for a write; callers put it in the same transaction as the write itself. The
 * summary is often built around a cluster's words (its answer to a write): clipped as they are.
 */
export function auditRow(event: AuditInput): Prisma.AuditEventCreateInput {
  return {
    actor: event.actor,
    role: event.role ?? null,
    action: event.action,
    targetType: event.targetType ?? null,
    targetId: event.targetId ?? null,
    summary: clipText(event.summary ?? auditSummary(event)),
    outcome: event.outcome ?? "success",
    details: (event.grant ? { ...event.details, grant: event.grant } : (event.details ?? undefined)) as Prisma.InputJsonValue | undefined,
    ip: event.ip ?? null,
  };
}

/** For events that have no state of their own (a failed sign-in, a refused request). */
export async function recordAudit(event: AuditInput): Promise<void> {
  await getDb().auditEvent.create({ data: auditRow(event) });
}

export type AuditFilter = {
  limit?: number;
  /** Events older than this id (paging). */
  before?: string;
  /** An action or its prefix: "bundle." matches every bundle action. */
  action?: string;
  actor?: string;
  /** The target's name (a cluster, a user, a bundle digest). */
  target?: string;
  outcome?: "success" | "failure" | "denied";
  from?: Date;
  to?: Date;
  /** A reader whose part of the fleet limits what they see (absent, or a fleet-wide reach: every event). */
  reader?: { username: string; reach: Reach };
};

/** Prisma passes startsWith/contains to LIKE as they are: % and _ would match anything. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Newest first; at most 500 per page, or `max` for exports. */
export async function listAudit(options: AuditFilter = {}, max = 500): Promise<AuditRecord[]> {
  const take = Math.min(Math.max(options.limit ?? 100, 1), max);
  const scoped = options.reader && options.reader.reach.kind !== "fleet" ? await scopedEventIds(options, options.reader, take) : null;
  const rows = await getDb().auditEvent.findMany({
    where: {
      ...(scoped ? { id: { in: scoped } } : {}),
      ...(options.before ? { id: { lt: BigInt(options.before) } } : {}),
      ...(options.action ? { action: { startsWith: likeLiteral(options.action) } } : {}),
      ...(options.actor ? { actor: options.actor } : {}),
      ...(options.target ? { targetId: { contains: likeLiteral(options.target), mode: "insensitive" as const } } : {}),
      ...(options.outcome ? { outcome: options.outcome } : {}),
      ...(options.from || options.to
        ? { at: { ...(options.from ? { gte: options.from } : {}), ...(options.to ? { lt: options.to } : {}) } }
        : {}),
    },
    orderBy: { id: "desc" },
    take,
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    at: r.at.toISOString(),
    actor: r.actor,
    role: r.role,
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    summary: r.summary ?? auditSummary(r),
    // Written from AuditInput's values only.
    outcome: r.outcome as AuditRecord["outcome"],
    details: r.details,
    ip: r.ip,
  }));
}

/**
 * Which events a reader whose grants are scoped may see, newest first, with the page's filters:
 * - their own events (actor = their username), whatever they were about;
 * - events about a cluster (targetType "cluster", targetId its name) in their read reach;
 * - events about a rollout (targetType "rollout", targetId its number): when the rollout touches a
 *   cluster in reach, as the rollout itself is shown; but a decision on clusters of it (skip, retry,
 *   include), whose summary may name one, only when every cluster of the rollout is in reach;
 * - events about the bundle catalog (targetType "bundle": vetting, uploads), which is not about any
 *   cluster and readable by everyone.
 * Anything else (users, settings, hubs, sessions, registrations) is an admin's to read.
 */
async function scopedEventIds(options: AuditFilter, reader: { username: string; reach: Reach }, take: number): Promise<bigint[]> {
  const values: unknown[] = [];
  const add = adder(values);
  const me = add(reader.username);
  const inReach = (alias: string) => reachSql(reader.reach, add, alias);
  const rolloutOf = `(SELECT r."id" FROM "Rollout" r WHERE r."number"::text = e."targetId")`;
  const visible = `(e."actor" = ${me}
    OR (e."targetType" = 'cluster' AND ${clusterInReachSql(reader.reach, `e."targetId"`, add)})
    OR (e."targetType" = 'rollout' AND e."action" NOT IN ('rollout.skip', 'rollout.retry', 'rollout.include') AND EXISTS (
          SELECT 1 FROM "RolloutCluster" rc JOIN "Cluster" c ON c."name" = rc."clusterName"
           WHERE rc."rolloutId" = ${rolloutOf} AND ${inReach("c")}))
    OR (e."targetType" = 'rollout' AND e."action" IN ('rollout.skip', 'rollout.retry', 'rollout.include') AND ${rolloutOf} IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM "RolloutCluster" rc WHERE rc."rolloutId" = ${rolloutOf}
                         AND NOT ${clusterInReachSql(reader.reach, `rc."clusterName"`, add)}))
    OR e."targetType" = 'bundle')`;
  const parts = [visible];
  if (options.before) parts.push(`e."id" < ${add(options.before)}::bigint`);
  if (options.action) parts.push(`e."action" LIKE ${add(`${likeLiteral(options.action)}%`)}`);
  if (options.actor) parts.push(`e."actor" = ${add(options.actor)}`);
  if (options.target) parts.push(`e."targetId" ILIKE ${add(`%${likeLiteral(options.target)}%`)}`);
  if (options.outcome) parts.push(`e."outcome" = ${add(options.outcome)}`);
  // As stored: UTC without a zone (store/fleet.ts storedTime; not imported: fleet.ts imports this module).
  const stored = (at: Date) => at.toISOString().replace("T", " ").replace("Z", "");
  if (options.from) parts.push(`e."at" >= ${add(stored(options.from))}::timestamp`);
  if (options.to) parts.push(`e."at" < ${add(stored(options.to))}::timestamp`);
  const { rows } = await getPool().query<{ id: string }>(
    `SELECT e."id"::text AS "id" FROM "AuditEvent" e WHERE ${parts.join(" AND ")} ORDER BY e."id" DESC LIMIT ${add(take)}`,
    values,
  );
  return rows.map((r) => BigInt(r.id));
}
