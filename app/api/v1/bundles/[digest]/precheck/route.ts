import { precheck } from "@/server/bundles/precheck";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** What stands in the way of applying a bundle to ?cluster= (read live from the cluster). */
export const GET = apiRoute<{ digest: string }>({ access: ["technician"] }, async ({ params, request }) => {
  const cluster = new URL(request.url).searchParams.get("cluster");
  if (!cluster) throw new UserFacingError(400, "name the cluster: ?cluster=NAME");
  return precheck(decodeURIComponent(params.digest), cluster);
});
