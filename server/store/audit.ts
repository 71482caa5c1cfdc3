import { auditSummary } from "../domain/auditSummary";
import { clipText } from "../domain/clip";
import type { Prisma } from "./generated/prisma/client";
import { getDb } from "./db";

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
    details: (event.details ?? undefined) as Prisma.InputJsonValue | undefined,
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
};

/** Prisma passes startsWith/contains to LIKE as they are: % and _ would match anything. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Newest first; at most 500 per page, or `max` for exports. */
export async function listAudit(options: AuditFilter = {}, max = 500): Promise<AuditRecord[]> {
  const rows = await getDb().auditEvent.findMany({
    where: {
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
    take: Math.min(Math.max(options.limit ?? 100, 1), max),
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
