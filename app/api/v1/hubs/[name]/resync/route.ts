import { hubEndpoints } from "@/server/hubs/contract";
import { resyncHub } from "@/server/hubs/hubs";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const POST = apiRoute(hubEndpoints.resync, async ({ params }) => {
  await resyncHub(params.name);
  return { resynced: params.name };
});
