import { fleetTimeline } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Clusters per skew status over time; ?from&to are ISO dates (default: the last year). */
export const GET = apiRoute({ access: "any" }, async ({ request }) => {
  const q = new URL(request.url).searchParams;
  return fleetTimeline(q.get("from"), q.get("to"));
});
