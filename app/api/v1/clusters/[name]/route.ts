import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { changeCluster, removeCluster } from "@/server/clusters/registration";
import { fleetEndpoints } from "@/server/fleet/contract";
import { clusterDetail } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The cluster's newest snapshot with skew, the managed-boot-images what-if and readiness for the default target. */
export const GET = apiRoute(fleetEndpoints.detail, async ({ params, user }) =>
  clusterDetail(params.name, { apiUrls: user.role === "admin" }),
);

export const PATCH = apiRoute(clusterAdminEndpoints.change, async ({ params, body, actor }) => ({
  cluster: await changeCluster(params.name, body, actor),
}));

export const DELETE = apiRoute(clusterAdminEndpoints.remove, async ({ params, actor }) => removeCluster(params.name, actor));
