import type { Actor } from "../auth/actor";
import { readReach } from "../domain/grants";
import { toCsv } from "../http/csv";
import { listAudit, type AuditFilter, type AuditRecord } from "../store/audit";
import { AuditQuerySchema, type AuditPage, type AuditQuery } from "./contract";

/** The audit log as people read it: filtered, a page at a time, or exported as CSV. */

export { AuditQuerySchema, type AuditPage, type AuditQuery };

/** The events a reader may see: all for a fleet-wide reader, else their own and those about their part of the fleet (store/audit.ts). */
export const readerOf = (actor: Actor | null): AuditFilter["reader"] =>
  actor ? { username: actor.user.username, reach: readReach(actor.held) } : undefined;

export async function auditPage(filter: AuditFilter = {}, actor: Actor | null = null): Promise<AuditPage> {
  return { events: await listAudit({ ...filter, reader: readerOf(actor) }) };
}

/** An export holds at most this many events, newest first. */
export const EXPORT_MAX = 50_000;

const CSV_COLUMNS: (keyof AuditRecord)[] = [
  "id",
  "at",
  "actor",
  "role",
  "action",
  "targetType",
  "targetId",
  "summary",
  "outcome",
  "ip",
  "details",
];

/** The events a filter matches as a CSV download (up to EXPORT_MAX), named after the day of the export. */
export async function auditCsv(
  filter: AuditFilter,
  now = new Date(),
  actor: Actor | null = null,
): Promise<{ filename: string; csv: string }> {
  const events = await listAudit({ ...filter, limit: filter.limit ?? EXPORT_MAX, reader: readerOf(actor) }, EXPORT_MAX);
  return { filename: `fleetskew-audit-${now.toISOString().slice(0, 10)}.csv`, csv: toCsv(CSV_COLUMNS, events) };
}
