import { hubEndpoints } from "@/server/hubs/contract";
import { hubSummaries, registerHub } from "@/server/hubs/hubs";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(hubEndpoints.list, async ({ user, actor }) => ({
  hubs: await hubSummaries(user.role, readReach(actor.held)),
}));

export const POST = apiRoute(hubEndpoints.register, async ({ body, actor }) => ({ hub: await registerHub(body, actor) }));
