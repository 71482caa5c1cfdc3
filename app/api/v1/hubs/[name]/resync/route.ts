import { resyncHub } from "@/server/hubs/hubs";
import { apiRoute, json, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** List the hub again now (admin) and bring its clusters in step; answers when done. */
export const POST = apiRoute({ access: ["admin"], params: pathParams("name") }, async ({ params }) => {
  await resyncHub(params.name);
  return json({ resynced: params.name });
});
