/** Waves an approver releases one at a time, when the plan asks for it (`releaseEachWave`). */
import type { RolloutRequest } from "./request";
import { TERMINAL, type ClusterState } from "./progress";

/**
 * The wave waiting for an approver: the first wave that has not ended, when every wave before it
 * has and none of its clusters has started. Null when no wave waits (or the plan does not ask).
 */
export function waveAwaitingRelease(
  request: RolloutRequest,
  waves: { index: number; releasedAt: string | null }[],
  counts: { wave: number; state: string; count: number }[],
): number | null {
  if (!request.strategy.releaseEachWave) return null;
  for (const w of waves) {
    const states = counts.filter((c) => c.wave === w.index && c.count > 0).map((c) => c.state);
    if (states.every((s) => TERMINAL.includes(s as ClusterState))) continue;
    // Skipped clusters were never started: a wave with some is still untouched.
    const untouched = states.every((s) => s === "pending" || s === "waiting-window" || s === "skipped");
    return w.index > 0 && !w.releasedAt && untouched ? w.index : null;
  }
  return null;
}
