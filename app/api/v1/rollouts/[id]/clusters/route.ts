import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { rolloutClusterPage } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

export const GET = apiRoute(rolloutEndpoints.clusters, async ({ params, query }) => rolloutClusterPage(params.id, query));
