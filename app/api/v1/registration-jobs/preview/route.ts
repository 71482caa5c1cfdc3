import { BULK_MAX_BODY_BYTES, BulkPreviewSchema, previewBulkRegistration } from "@/server/clusters/bulk";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Every context of a kubeconfig with what it would become (admin); no cluster is contacted. */
export const POST = apiRoute({ access: ["admin"], body: BulkPreviewSchema, maxBodyBytes: BULK_MAX_BODY_BYTES }, async ({ body }) =>
  previewBulkRegistration(body.kubeconfig),
);
