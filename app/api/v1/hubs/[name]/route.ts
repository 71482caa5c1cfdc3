import { hubEndpoints } from "@/server/hubs/contract";
import { hubDetail, removeHub } from "@/server/hubs/hubs";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(hubEndpoints.detail, async ({ params, user, actor }) =>
  hubDetail(params.name, user.role, readReach(actor.held)),
);

export const DELETE = apiRoute(hubEndpoints.remove, async ({ params, actor }) => removeHub(params.name, actor));
