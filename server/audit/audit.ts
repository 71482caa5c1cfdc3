import { z } from "zod";
import { isDateOnly, parseIsoTime } from "../domain/time";
import { toCsv } from "../http/csv";
import { listAudit, type AuditFilter, type AuditRecord } from "../store/audit";

/** The audit log as people read it: filtered, a page at a time, or exported as CSV. */

/** An ISO 8601 date or time; with `untilEndOfDay`, a date alone means the end of that day. */
const isoTime = (untilEndOfDay: boolean) =>
  z.string().transform((s, ctx) => {
    const at = parseIsoTime(s);
    if (!at) {
      ctx.addIssue({ code: "custom", message: "dates are ISO 8601, e.g. 2026-11-01" });
      return z.NEVER;
    }
    return untilEndOfDay && isDateOnly(s) ? new Date(at.getTime() + 86_400_000) : at;
  });

/** GET /api/v1/audit's query string; an empty value counts as not given. */
export const AuditQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  before: z
    .string()
    .regex(/^[1-9]\d{0,17}$/, "before must be an event id")
    .optional(),
  action: z.string().max(100).optional(),
  actor: z.string().max(100).optional(),
  target: z.string().max(300).optional(),
  outcome: z.enum(["success", "failure", "denied"], { error: "outcome must be success, failure or denied" }).optional(),
  from: isoTime(false).optional(),
  to: isoTime(true).optional(),
  format: z.enum(["json", "csv"], { error: "format must be json or csv" }).optional(),
});
export type AuditQuery = z.output<typeof AuditQuerySchema>;

/** GET /api/v1/audit */
export type AuditPage = { events: AuditRecord[] };

export async function auditPage(filter: AuditFilter = {}): Promise<AuditPage> {
  return { events: await listAudit(filter) };
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
export async function auditCsv(filter: AuditFilter, now = new Date()): Promise<{ filename: string; csv: string }> {
  const events = await listAudit({ ...filter, limit: filter.limit ?? EXPORT_MAX }, EXPORT_MAX);
  return { filename: `fleetskew-audit-${now.toISOString().slice(0, 10)}.csv`, csv: toCsv(CSV_COLUMNS, events) };
}
