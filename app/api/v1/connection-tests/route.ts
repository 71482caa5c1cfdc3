import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { testCredentials } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Test credentials before registering them; nothing is stored but the audit event. */
export const POST = apiRoute(clusterAdminEndpoints.testCredentials, async ({ body, actor }) => ({
  report: await testCredentials(body.source, actor),
}));
