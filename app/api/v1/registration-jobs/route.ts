import { createRegistrationJob } from "@/server/clusters/bulk";
import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Register many contexts of a kubeconfig in one go (admin): answers at once with the job; see docs/api.md. */
export const POST = apiRoute(clusterAdminEndpoints.createRegistrationJob, async ({ body, actor }) => ({
  job: await createRegistrationJob(body, actor),
}));
