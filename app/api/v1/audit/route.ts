import { z } from "zod";
import { isDateOnly, parseIsoTime } from "@/server/domain/time";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";
import { toCsv } from "@/server/http/csv";
import { listAudit, type AuditRecord } from "@/server/store/audit";

export const dynamic = "force-dynamic";

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

const Query = z.object({
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

const EXPORT_MAX = 50_000;

/** The audit log with filters; ?format=csv downloads up to 50,000 matching events. */
export const GET = apiRoute({ access: ["admin", "approver"] }, async ({ request }) => {
  const params = Object.fromEntries([...new URL(request.url).searchParams].filter(([, v]) => v !== ""));
  const parsed = Query.safeParse(params);
  if (!parsed.success) throw new UserFacingError(400, `${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`);
  const { format, ...filter } = parsed.data;
  if (format !== "csv") return { events: await listAudit(filter) };
  const events = await listAudit({ ...filter, limit: filter.limit ?? EXPORT_MAX }, EXPORT_MAX);
  const columns: (keyof AuditRecord & string)[] = [
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
  return new Response(toCsv(columns, events as unknown as Record<string, unknown>[]), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="fleetskew-audit-${new Date().toISOString().slice(0, 10)}.csv"`,
    },
  });
});
