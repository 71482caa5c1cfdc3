import { fleetEndpoints } from "@/server/fleet/contract";
import { fleetTimeline } from "@/server/fleet/fleet";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Clusters in the reader's reach per skew status over time; ?from&to are ISO dates (default: the last year). */
export const GET = apiRoute(fleetEndpoints.fleetTimeline, async ({ query, actor }) => fleetTimeline(readReach(actor.held), query));
