import { unpin } from "@/server/bundles/unpin";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Remove the application's PinnedImageSets from the cluster. */
export const POST = apiRoute<{ id: string }>({ access: ["technician"] }, async ({ params, user, ip }) => ({
  application: await unpin(params.id, { user: user!, ip }),
}));
