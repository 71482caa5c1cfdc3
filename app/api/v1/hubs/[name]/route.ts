import { hubEndpoints } from "@/server/hubs/contract";
import { hubDetail, removeHub } from "@/server/hubs/hubs";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(hubEndpoints.detail, async ({ params, user }) => hubDetail(params.name, user.role));

export const DELETE = apiRoute(hubEndpoints.remove, async ({ params, actor }) => removeHub(params.name, actor));
