import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { changeCluster, removeCluster } from "@/server/clusters/registration";
import { fleetEndpoints } from "@/server/fleet/contract";
import { clusterDetail, requireClusterInReach } from "@/server/fleet/fleet";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The cluster's newest snapshot with skew, the managed-boot-images what-if and readiness for the default target; 404 outside the reader's reach. */
export const GET = apiRoute(fleetEndpoints.detail, async ({ params, user, actor }) =>
  clusterDetail(params.name, { apiUrls: user.role === "admin", reach: readReach(actor.held) }),
);

// Changing and removing are admin-only (fleet-wide), but still go through the reach check so that
// every path under a cluster answers a cluster outside reach with the same 404.
export const PATCH = apiRoute(clusterAdminEndpoints.change, async ({ params, body, actor }) => {
  await requireClusterInReach(params.name, readReach(actor.held));
  return { cluster: await changeCluster(params.name, body, actor) };
});

export const DELETE = apiRoute(clusterAdminEndpoints.remove, async ({ params, actor }) => {
  await requireClusterInReach(params.name, readReach(actor.held));
  return removeCluster(params.name, actor);
});
