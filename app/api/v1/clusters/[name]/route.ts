import { changeCluster, removeCluster, UpdateClusterSchema } from "@/server/clusters/registration";
import { clusterDetail } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

type Params = { name: string };

/** The cluster's newest snapshot with skew, the managed-boot-images what-if and readiness for the default target. */
export const GET = apiRoute<Params>({ access: "any" }, async ({ params }) => clusterDetail(params.name));

export const PATCH = apiRoute<Params, typeof UpdateClusterSchema>(
  { access: ["admin"], body: UpdateClusterSchema, maxBodyBytes: 600 * 1024 },
  async ({ params, body, user, ip }) => ({
    cluster: await changeCluster(params.name, body, { user: user!, ip }),
  }),
);

export const DELETE = apiRoute<Params>({ access: ["admin"] }, async ({ params, user, ip }) => {
  await removeCluster(params.name, { user: user!, ip });
  return new Response(null, { status: 204 });
});
