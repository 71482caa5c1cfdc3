import { fleetEndpoints } from "@/server/fleet/contract";
import { fleetTimeline } from "@/server/fleet/fleet";
import { reachKey, readReach } from "@/server/domain/grants";
import { answerKey, sharedAnswer } from "@/server/fleet/sharedAnswers";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/**
 * A chart of days reads the fleet's days kept summed and the changes since, or for a team every skew
 * change of its clusters (seconds at 100,000 clusters with a year of history, docs/history.md): shared
 * per reach and window asked, renewed in the background after ten minutes (while the kept one is
 * given), computed while the caller waits only after a day.
 */
const TIMELINE_SHARING = { freshMs: 10 * 60_000, keptMs: 24 * 3_600_000 };

/** Clusters in the reader's reach per skew status over time; ?from&to are ISO dates (default: the last year). */
export const GET = apiRoute(fleetEndpoints.fleetTimeline, async ({ request, query, actor }) => {
  const reach = readReach(actor.held);
  // Keyed by what was asked (the default window ends now, so its parsed form differs at every call).
  const asked = new URL(request.url).searchParams;
  const key = answerKey(`fleet-timeline ${reachKey(reach)}`, { from: asked.get("from") ?? undefined, to: asked.get("to") ?? undefined });
  return sharedAnswer(key, () => fleetTimeline(reach, query), Date.now(), TIMELINE_SHARING);
});
