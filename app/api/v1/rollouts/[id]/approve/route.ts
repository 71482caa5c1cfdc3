import { digestsOfIfMatch } from "@/server/domain/rollouts/digest";
import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { approve } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

/** Approves the version reviewed: If-Match (the ETag of the rollout), or the page's digest in the body. */
export const POST = apiRoute(rolloutEndpoints.approve, async ({ request, params, body, actor }) => {
  const ifMatch = request.headers.get("if-match");
  const digests = ifMatch ? digestsOfIfMatch(ifMatch) : body.digest ? [body.digest] : [];
  return approve(params.id, digests, body.comment, actor);
});
