import { apiRoute, json } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { rolloutView } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

/** The rollout, with its plan's digest as the ETag: what approve's If-Match sends back. */
export const GET = apiRoute(rolloutEndpoints.get, async ({ params, actor }) => {
  const view = await rolloutView(params.id, actor);
  return json(view, { headers: { etag: `"${view.digest}"`, "cache-control": "no-store" } });
});
