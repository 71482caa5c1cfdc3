import { clusterTimeline } from "@/server/fleet/fleet";
import { CLUSTER_TIMELINE_DAYS, timeWindowQuery } from "@/server/fleet/query";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Version, oldest boot image, skew status and events over time; ?from&to are ISO dates (default: four years). */
export const GET = apiRoute(
  { access: "any", params: pathParams("name"), query: timeWindowQuery(CLUSTER_TIMELINE_DAYS) },
  async ({ params, query }) => clusterTimeline(params.name, query),
);
