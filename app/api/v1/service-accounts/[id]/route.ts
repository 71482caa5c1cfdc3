import { serviceAccountEndpoints } from "@/server/tokens/contract";
import { disableService } from "@/server/tokens/serviceAccounts";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(serviceAccountEndpoints.disable, async ({ params, actor }) => ({
  serviceAccount: await disableService(params.id, actor),
}));
