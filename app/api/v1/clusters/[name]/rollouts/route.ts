import { readReach } from "@/server/domain/grants";
import { requireClusterInReach } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { clusterRollouts } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

/** The rollouts that include the cluster; 404 for a cluster outside the reader's reach, as for one that does not exist. */
export const GET = apiRoute(rolloutEndpoints.ofCluster, async ({ params, actor }) => {
  await requireClusterInReach(params.name, readReach(actor.held));
  return { rollouts: await clusterRollouts(params.name) };
});
