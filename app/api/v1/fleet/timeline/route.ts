import { fleetEndpoints } from "@/server/fleet/contract";
import { fleetTimeline } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Clusters per skew status over time; ?from&to are ISO dates (default: the last year). */
export const GET = apiRoute(fleetEndpoints.fleetTimeline, async ({ query }) => fleetTimeline(query));
