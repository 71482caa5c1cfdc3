import { changeCluster, findClusterSummary, removeCluster, UpdateClusterSchema } from "@/server/clusters/registration";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

type Params = { name: string };

export const GET = apiRoute<Params>({ access: "any" }, async ({ params }) => {
  const cluster = await findClusterSummary(params.name);
  if (!cluster) throw new UserFacingError(404, `no cluster named ${params.name}`);
  return { cluster };
});

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
