import { z } from "zod";
import { precheck } from "@/server/bundles/precheck";
import { apiRoute, pathParams } from "@/server/http/api";

export const dynamic = "force-dynamic";

const Query = z.object({
  cluster: z.string({ error: "name the cluster: ?cluster=NAME" }).trim().min(1, "name the cluster: ?cluster=NAME"),
});

/** What stands in the way of applying a bundle to ?cluster= (read live from the cluster). */
export const GET = apiRoute({ access: ["technician"], params: pathParams("digest"), query: Query }, async ({ params, query }) =>
  precheck(decodeURIComponent(params.digest), query.cluster),
);
