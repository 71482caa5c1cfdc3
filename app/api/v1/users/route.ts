import { addUser, listUsersWithTokens } from "@/server/auth/users";
import { userEndpoints } from "@/server/auth/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(userEndpoints.list, async () => ({ users: await listUsersWithTokens() }));

export const POST = apiRoute(userEndpoints.create, async ({ body, actor }) => ({ user: await addUser(body, actor) }));
