import { apiRoute } from "@/server/http/api";
import { rolloutEndpoints } from "@/server/rollouts/contract";
import { changeRollout } from "@/server/rollouts/manage";

export const dynamic = "force-dynamic";

export const POST = apiRoute(rolloutEndpoints.approve, async ({ params, body, actor }) =>
  changeRollout(params.id, "approve", body.comment, actor),
);
