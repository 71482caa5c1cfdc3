import { applyBundle, ApplyBundleSchema } from "@/server/bundles/apply";
import { listApplications } from "@/server/bundles/bundles";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "any" }, async () => ({ applications: await listApplications() }));

/** Apply a bundle to a cluster (technician or admin): 201 when applied now, 200 when it already was. */
export const POST = apiRoute({ access: ["technician"], body: ApplyBundleSchema }, async ({ body, actor }) => {
  const { application, created } = await applyBundle(body, actor);
  return json({ application }, { status: created ? 201 : 200 });
});
