import { applicationProgress } from "@/server/bundles/progress";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Every node's pre-load, readiness for the bundle's release and the upgrade, read live. */
export const GET = apiRoute({ access: "any", params: pathParams("id") }, async ({ params }) => applicationProgress(params.id));
