import { fleetEndpoints } from "@/server/fleet/contract";
import { clusterTimeline } from "@/server/fleet/fleet";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Version, oldest boot image, skew status and events over time; ?from&to are ISO dates (default: four years). */
export const GET = apiRoute(fleetEndpoints.timeline, async ({ params, query, actor }) =>
  clusterTimeline(params.name, readReach(actor.held), query),
);
