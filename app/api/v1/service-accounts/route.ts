import { serviceAccountEndpoints } from "@/server/tokens/contract";
import { createServiceAccount, serviceAccounts } from "@/server/tokens/serviceAccounts";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(serviceAccountEndpoints.list, async () => ({ serviceAccounts: await serviceAccounts() }));

export const POST = apiRoute(serviceAccountEndpoints.create, async ({ body, actor }) => ({
  serviceAccount: await createServiceAccount(body, actor),
}));
