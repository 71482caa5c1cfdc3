import { startUpgrade, StartUpgradeSchema } from "@/server/bundles/startUpgrade";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Set ClusterVersion spec.desiredUpdate to the bundle's release (technician or admin; only an admin may override, with a reason). */
export const POST = apiRoute<{ id: string }, typeof StartUpgradeSchema>(
  { access: ["technician"], body: StartUpgradeSchema },
  async ({ params, body, user, ip }) => ({ application: await startUpgrade(params.id, body, { user: user!, ip }) }),
);
