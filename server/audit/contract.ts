/**
 * What GET /api/v1/audit takes and sends, defined once: the route binds to this endpoint, the
 * browser calls it, the OpenAPI document is made from it. Imports zod and pure modules only, so the
 * browser may import it.
 */
import { z } from "zod";
import { isDateOnly, parseIsoTime } from "../domain/time";
import { endpoint, isoDate } from "../http/endpoint";

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

const OUTCOMES = ["success", "failure", "denied"] as const;

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
  outcome: z.enum(OUTCOMES, { error: "outcome must be success, failure or denied" }).optional(),
  from: isoTime(false).optional(),
  to: isoTime(true).optional(),
  format: z.enum(["json", "csv"], { error: "format must be json or csv" }).optional(),
});
export type AuditQuery = z.output<typeof AuditQuerySchema>;

/** One event of the audit log. */
export const AuditRecordAnswer = z
  .strictObject({
    id: z.string().meta({ description: "Newest highest; the last one of a page, as ?before=, asks for the next page" }),
    at: isoDate(),
    actor: z.string().nullable().meta({ description: "null for the system" }),
    role: z.string().nullable().meta({ description: "The role the actor acted with; null for the system and failed sign-ins" }),
    action: z.string(),
    targetType: z.string().nullable(),
    targetId: z.string().nullable(),
    summary: z.string(),
    outcome: z.enum(OUTCOMES),
    details: z.unknown().meta({ description: "What else the action recorded (JSON), or null" }),
    ip: z.string().nullable(),
  })
  .meta({ id: "AuditEvent" });
export type AuditRecord = z.output<typeof AuditRecordAnswer>;

export const AuditPageAnswer = z.strictObject({ events: z.array(AuditRecordAnswer) });
export type AuditPage = z.output<typeof AuditPageAnswer>;

export const auditEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/audit",
    summary: "The audit log, newest first, filtered and a page at a time",
    description:
      "Pages of ?limit= events (default 100, at most 500); ?before= the last event's id gives the next page. ?format=csv downloads up to 50,000 matching events instead.",
    access: ["admin", "approver"],
    query: AuditQuerySchema,
    alsoCsv:
      "with ?format=csv, a CSV download of up to 50,000 matching events (id, at, actor, role, action, targetType, targetId, summary, outcome, ip, details)",
    work: { kind: "export", when: (query) => (query as { format?: string }).format === "csv" },
    answer: AuditPageAnswer,
  }),
};
