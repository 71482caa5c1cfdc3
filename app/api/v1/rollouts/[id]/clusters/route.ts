import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { decideClusters } from "@/server/rollouts/decisions";
import { rolloutClusterPage } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

export const GET = apiRoute(rolloutEndpoints.clusters, async ({ params, query, actor }) => rolloutClusterPage(params.id, query, actor));

export const POST = apiRoute(rolloutEndpoints.decide, async ({ params, body, actor }) => decideClusters(params.id, body, actor));
