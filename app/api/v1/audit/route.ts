import { auditCsv, auditPage, auditQueryOf } from "@/server/audit/audit";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The audit log with filters; ?format=csv downloads up to 50,000 matching events. */
export const GET = apiRoute({ access: ["admin", "approver"] }, async ({ request }) => {
  const { format, ...filter } = auditQueryOf(new URL(request.url).searchParams);
  if (format !== "csv") return auditPage(filter);
  const { filename, csv } = await auditCsv(filter);
  return new Response(csv, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${filename}"` },
  });
});
