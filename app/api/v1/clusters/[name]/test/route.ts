import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { testRegisteredCluster } from "@/server/clusters/registration";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Test a registered cluster's connection now and record the outcome (audited). */
export const POST = apiRoute(clusterAdminEndpoints.testRegistered, async ({ params, actor }) => ({
  report: await testRegisteredCluster(params.name, actor),
}));
