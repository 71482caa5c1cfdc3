import { hubDetail, removeHub } from "@/server/hubs/hubs";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

const params = pathParams("name");

/** A hub and every managed cluster it reported, eligible or with the first reason it is not. */
export const GET = apiRoute({ access: "any", params }, async ({ params }) => hubDetail(params.name));

/** Forget a hub (admin): its clusters stay, marked removed, with their history. */
export const DELETE = apiRoute({ access: ["admin"], params }, async ({ params, actor }) => removeHub(params.name, actor));
