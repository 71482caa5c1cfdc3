import { applyBundle, ApplyBundleSchema } from "@/server/bundles/applications";
import { apiRoute, json } from "@/server/http/api";
import { listApplications } from "@/server/store/bundles";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "any" }, async () => ({ applications: await listApplications() }));

/** Apply a bundle to a cluster (technician or admin): 201 when applied now, 200 when it already was. */
export const POST = apiRoute({ access: ["technician"], body: ApplyBundleSchema }, async ({ body, actor }) => {
  const { application, created } = await applyBundle(body, actor);
  return json({ application }, { status: created ? 201 : 200 });
});
