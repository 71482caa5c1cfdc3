import { fleetReadiness } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Readiness rolled up over the fleet for ?target= (each cluster's next minor when omitted). */
export const GET = apiRoute({ access: "any" }, async ({ request }) => {
  return fleetReadiness(new URL(request.url).searchParams.get("target"));
});
