import { tokenEndpoints } from "@/server/tokens/contract";
import { revokeToken } from "@/server/tokens/tokens";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const DELETE = apiRoute(tokenEndpoints.revoke, async ({ params, actor }) => ({ token: await revokeToken(params.id, actor) }));
