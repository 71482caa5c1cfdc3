import { tokenEndpoints } from "@/server/tokens/contract";
import { issueToken, ownTokens } from "@/server/tokens/tokens";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(tokenEndpoints.list, async ({ actor }) => ({ tokens: await ownTokens(actor) }));

export const POST = apiRoute(tokenEndpoints.create, async ({ body, actor }) => issueToken(actor.user, body, actor));
