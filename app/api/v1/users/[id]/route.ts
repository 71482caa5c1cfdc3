import { changeUser } from "@/server/auth/users";
import { userEndpoints } from "@/server/auth/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const PATCH = apiRoute(userEndpoints.change, async ({ params, body, actor }) => ({
  user: await changeUser(params.id, body, actor),
}));
