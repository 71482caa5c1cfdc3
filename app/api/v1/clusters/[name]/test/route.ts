import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { testRegisteredCluster } from "@/server/clusters/registration";
import { readReach } from "@/server/domain/grants";
import { requireClusterInReach } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Test a registered cluster's connection now and record the outcome (audited). */
export const POST = apiRoute(clusterAdminEndpoints.testRegistered, async ({ params, actor }) => {
  // Admin-only, so fleet-wide today; the check keeps the 404 the same as every other path under a cluster.
  await requireClusterInReach(params.name, readReach(actor.held));
  return { report: await testRegisteredCluster(params.name, actor) };
});
