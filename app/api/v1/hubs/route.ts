import { hubEndpoints } from "@/server/hubs/contract";
import { hubSummaries, registerHub } from "@/server/hubs/hubs";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(hubEndpoints.list, async ({ user }) => ({ hubs: await hubSummaries(user.role) }));

export const POST = apiRoute(hubEndpoints.register, async ({ body, actor }) => ({ hub: await registerHub(body, actor) }));
