import { startUpgrade, StartUpgradeSchema } from "@/server/bundles/startUpgrade";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Set ClusterVersion spec.desiredUpdate to the bundle's release (technician or admin; only an admin may override, with a reason). */
export const POST = apiRoute(
  { access: ["technician"], params: pathParams("id"), body: StartUpgradeSchema },
  async ({ params, body, actor }) => ({
    application: await startUpgrade(params.id, body, actor),
  }),
);
