import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { rolloutView } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

export const GET = apiRoute(rolloutEndpoints.get, async ({ params }) => rolloutView(params.id));
