import { applyBundle } from "@/server/bundles/apply";
import { listApplications } from "@/server/bundles/bundles";
import { bundleEndpoints } from "@/server/bundles/contract";
import { readReach } from "@/server/domain/grants";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(bundleEndpoints.applications, async ({ actor }) => ({
  applications: await listApplications({ reach: readReach(actor.held) }),
}));

/** 201 when applied now; 200, with the same answer, when it already was. */
export const POST = apiRoute(bundleEndpoints.apply, async ({ body, actor }) => {
  const { application, created } = await applyBundle(body, actor);
  return created ? { application } : json({ application }, { status: 200 });
});
