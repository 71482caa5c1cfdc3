import { fleetEndpoints } from "@/server/fleet/contract";
import { fleetReadiness } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Readiness rolled up over the fleet for ?target= (each cluster's next minor when omitted). */
export const GET = apiRoute(fleetEndpoints.readinessRollUp, async ({ query }) => fleetReadiness(query.target ?? null));
