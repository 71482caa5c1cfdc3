import { fleetEndpoints, type FleetSummary } from "@/server/fleet/contract";
import { fleetSummary } from "@/server/fleet/fleet";
import { reachKey, readReach } from "@/server/domain/grants";
import { answerKey, sharedAnswer } from "@/server/fleet/sharedAnswers";
import { apiRoute } from "@/server/http/api";
import { etagged, etaggedResponse } from "@/server/http/etag";

export const dynamic = "force-dynamic";

/** Counts of the fleet in the reader's reach (from aggregates, shared by everyone asking at once); 304 when nothing changed since the caller's copy. */
export const GET = apiRoute(fleetEndpoints.summary, async ({ request, actor }) => {
  const reach = readReach(actor.held);
  return etaggedResponse(
    request,
    await sharedAnswer(answerKey(`summary.json ${reachKey(reach)}`), async () => {
      const { generatedAt: _, ...summary } = await fleetSummary(reach);
      return etagged(summary satisfies FleetSummary);
    }),
  );
});
