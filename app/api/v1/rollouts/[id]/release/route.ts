import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { releaseRolloutWave } from "@/server/rollouts/decisions";

export const dynamic = "force-dynamic";

export const POST = apiRoute(rolloutEndpoints.release, async ({ params, body, actor }) =>
  releaseRolloutWave(params.id, body.wave, body.comment, actor),
);
