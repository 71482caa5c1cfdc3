import { fleetEndpoints } from "@/server/fleet/contract";
import { fleetCsv } from "@/server/fleet/fleetPage";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Every cluster the fleet query matches (paging ignored), as CSV streamed from the database. */
export const GET = apiRoute(
  fleetEndpoints.csv,
  async ({ query, actor }) =>
    new Response(fleetCsv(query, readReach(actor.held)), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="fleet-${new Date().toISOString().slice(0, 10)}.csv"`,
        "cache-control": "no-store",
      },
    }),
);
