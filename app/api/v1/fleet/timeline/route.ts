import { fleetTimeline } from "@/server/fleet/fleet";
import { FLEET_TIMELINE_DAYS, timeWindowQuery } from "@/server/fleet/query";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Clusters per skew status over time; ?from&to are ISO dates (default: the last year). */
export const GET = apiRoute({ access: "any", query: timeWindowQuery(FLEET_TIMELINE_DAYS) }, async ({ query }) => fleetTimeline(query));
