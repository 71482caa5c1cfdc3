import { apiRoute, json } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { proposeRollout, rolloutSummaries } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

export const GET = apiRoute(rolloutEndpoints.list, async ({ actor }) => ({ rollouts: await rolloutSummaries(actor) }));

/** The plan (dryRun: true, 200), or the saved rollout waiting for approval (201). */
export const POST = apiRoute(rolloutEndpoints.create, async ({ body, actor }) => {
  const { status, answer } = await proposeRollout(body, actor);
  return json(answer, { status });
});
