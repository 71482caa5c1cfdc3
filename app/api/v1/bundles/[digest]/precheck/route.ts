import { bundleEndpoints } from "@/server/bundles/contract";
import { precheck } from "@/server/bundles/precheck";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute(bundleEndpoints.precheck, async ({ params, query, actor }) =>
  precheck(decodeURIComponent(params.digest), query.cluster, actor),
);
