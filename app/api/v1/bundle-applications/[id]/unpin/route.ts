import { unpin } from "@/server/bundles/unpin";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Remove the application's PinnedImageSets from the cluster. */
export const POST = apiRoute({ access: ["technician"], params: pathParams("id") }, async ({ params, actor }) => ({
  application: await unpin(params.id, actor),
}));
