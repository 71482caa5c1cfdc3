import type { Prisma } from "./generated/prisma/client";
import { getDb } from "./db";

export type AuditInput = {
  actor: string | null;
  action: string;
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
  action: string;
  targetType: string | null;
  targetId: string | null;
  outcome: string;
  details: unknown;
  ip: string | null;
};

/** The audit row for a write; callers put it in the same transaction as the write itself. */
export function auditRow(event: AuditInput): Prisma.AuditEventCreateInput {
  return {
    actor: event.actor,
    action: event.action,
    targetType: event.targetType ?? null,
    targetId: event.targetId ?? null,
    outcome: event.outcome ?? "success",
    details: (event.details ?? undefined) as Prisma.InputJsonValue | undefined,
    ip: event.ip ?? null,
  };
}

/** For events that have no state of their own (a failed sign-in, a refused request). */
export async function recordAudit(event: AuditInput): Promise<void> {
  await getDb().auditEvent.create({ data: auditRow(event) });
}

export async function listAudit(options: { limit?: number; before?: string; action?: string } = {}): Promise<AuditRecord[]> {
  const rows = await getDb().auditEvent.findMany({
    where: {
      ...(options.before ? { id: { lt: BigInt(options.before) } } : {}),
      ...(options.action ? { action: { startsWith: options.action } } : {}),
    },
    orderBy: { id: "desc" },
    take: Math.min(Math.max(options.limit ?? 100, 1), 500),
  });
  return rows.map((r) => ({
    id: r.id.toString(),
    at: r.at.toISOString(),
    actor: r.actor,
    action: r.action,
    targetType: r.targetType,
    targetId: r.targetId,
    outcome: r.outcome,
    details: r.details,
    ip: r.ip,
  }));
}
