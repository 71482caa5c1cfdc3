import { fleetEndpoints, type FleetSummary } from "@/server/fleet/contract";
import { fleetSummary } from "@/server/fleet/fleet";
import { answerKey, sharedAnswer } from "@/server/fleet/sharedAnswers";
import { apiRoute } from "@/server/http/api";
import { etagged, etaggedResponse } from "@/server/http/etag";

export const dynamic = "force-dynamic";

/** Counts of the whole fleet (from aggregates, shared by everyone asking at once); 304 when nothing changed since the caller's copy. */
export const GET = apiRoute(fleetEndpoints.summary, async ({ request }) =>
  etaggedResponse(
    request,
    await sharedAnswer(answerKey("summary.json"), async () => {
      const { generatedAt: _, ...summary } = await fleetSummary();
      return etagged(summary satisfies FleetSummary);
    }),
  ),
);
