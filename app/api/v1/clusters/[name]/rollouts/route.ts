import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { clusterRollouts } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

export const GET = apiRoute(rolloutEndpoints.ofCluster, async ({ params }) => ({ rollouts: await clusterRollouts(params.name) }));
