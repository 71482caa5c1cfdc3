import { auditCsv, auditPage } from "@/server/audit/audit";
import { auditEndpoints } from "@/server/audit/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The audit log with filters; ?format=csv downloads up to 50,000 matching events. */
export const GET = apiRoute(auditEndpoints.list, async ({ query, actor }) => {
  const { format, ...filter } = query;
  if (format !== "csv") return auditPage(filter, actor);
  const { filename, csv } = await auditCsv(filter, new Date(), actor);
  return new Response(csv, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${filename}"` },
  });
});
