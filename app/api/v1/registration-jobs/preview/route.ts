import { previewBulkRegistration } from "@/server/clusters/bulk";
import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Every context of a kubeconfig with what it would become (admin); no cluster is contacted. */
export const POST = apiRoute(clusterAdminEndpoints.previewRegistrationJob, async ({ body }) => previewBulkRegistration(body.kubeconfig));
