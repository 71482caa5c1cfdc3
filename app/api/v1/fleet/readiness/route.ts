import { fleetEndpoints } from "@/server/fleet/contract";
import { fleetReadiness } from "@/server/fleet/fleet";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Readiness rolled up over the clusters in the reader's reach for ?target= (each cluster's next minor when omitted). */
export const GET = apiRoute(fleetEndpoints.readinessRollUp, async ({ query, actor }) =>
  fleetReadiness(query.target ?? null, readReach(actor.held)),
);
