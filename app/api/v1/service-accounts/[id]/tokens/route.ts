import { serviceAccountEndpoints } from "@/server/tokens/contract";
import { issueServiceToken } from "@/server/tokens/serviceAccounts";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const POST = apiRoute(serviceAccountEndpoints.createToken, async ({ params, body, actor }) =>
  issueServiceToken(params.id, body, actor),
);
