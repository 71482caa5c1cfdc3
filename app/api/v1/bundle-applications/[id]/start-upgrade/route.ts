import { bundleEndpoints } from "@/server/bundles/contract";
import { startUpgrade } from "@/server/bundles/startUpgrade";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Only an admin may override failing readiness checks, with a reason. */
export const POST = apiRoute(bundleEndpoints.startUpgrade, async ({ params, body, actor }) => ({
  application: await startUpgrade(params.id, body, actor),
}));
