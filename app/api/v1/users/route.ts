import { addUser, listUsers, NewUserSchema } from "@/server/auth/users";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: ["admin"] }, async () => ({ users: await listUsers() }));

export const POST = apiRoute({ access: ["admin"], body: NewUserSchema }, async ({ body, actor }) =>
  json({ user: await addUser(body, actor) }, { status: 201 }),
);
