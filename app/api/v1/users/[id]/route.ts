import { z } from "zod";
import { changeUser, UserChangeSchema } from "@/server/auth/users";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

const Params = z.object({ id: z.uuid("No such user") });

export const PATCH = apiRoute({ access: ["admin"], params: Params, body: UserChangeSchema }, async ({ params, body, actor }) => ({
  user: await changeUser(params.id, body, actor),
}));
