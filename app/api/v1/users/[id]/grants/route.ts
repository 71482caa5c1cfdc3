import { setGrants } from "@/server/auth/users";
import { userEndpoints } from "@/server/auth/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const PUT = apiRoute(userEndpoints.setGrants, async ({ params, body, actor }) => ({
  user: await setGrants(params.id, body, actor),
}));
