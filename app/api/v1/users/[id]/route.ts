import { z } from "zod";
import { changeUser, UserChangeSchema } from "@/server/auth/users";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const PATCH = apiRoute<{ id: string }, typeof UserChangeSchema>(
  { access: ["admin"], body: UserChangeSchema },
  async ({ params, body, user, ip }) => {
    if (!z.uuid().safeParse(params.id).success) throw new UserFacingError(404, "No such user");
    return { user: await changeUser(params.id, body, { user: user!, ip }) };
  },
);
