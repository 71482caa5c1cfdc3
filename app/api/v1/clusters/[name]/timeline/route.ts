import { clusterTimeline } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Version, oldest boot image, skew status and events over time; ?from&to are ISO dates (default: four years). */
export const GET = apiRoute<{ name: string }>({ access: "any" }, async ({ params, request }) => {
  const q = new URL(request.url).searchParams;
  return clusterTimeline(params.name, q.get("from"), q.get("to"));
});
