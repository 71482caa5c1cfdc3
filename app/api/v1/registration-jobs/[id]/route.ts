import { requireRegistrationJob } from "@/server/clusters/bulk";
import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** A registration job's progress: counts, and each context's status and reason (admin). */
export const GET = apiRoute(clusterAdminEndpoints.registrationJob, async ({ params }) => ({
  job: await requireRegistrationJob(params.id),
}));
