import { z } from "zod";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";
import { toCsv } from "@/server/http/csv";
import { listAudit, type AuditRecord } from "@/server/store/audit";

export const dynamic = "force-dynamic";

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}(T.*)?$/, "dates are ISO 8601, e.g. 2026-11-01");
const validDate = (d: Date) => !Number.isNaN(d.getTime());
const day = isoDate.transform((s) => new Date(s)).refine(validDate, "not a valid date");
// A day given as "until" includes that day.
const untilDay = isoDate
  .transform((s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) ? new Date(Date.parse(s) + 86_400_000) : new Date(s)))
  .refine(validDate, "not a valid date");

const Query = z.object({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  before: z.string().regex(/^\d+$/, "before must be an event id").optional(),
  action: z.string().max(100).optional(),
  actor: z.string().max(100).optional(),
  target: z.string().max(300).optional(),
  outcome: z.enum(["success", "failure", "denied"], { error: "outcome must be success, failure or denied" }).optional(),
  from: day.optional(),
  to: untilDay.optional(),
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
