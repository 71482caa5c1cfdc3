/** Waves an approver releases one at a time, when the plan asks for it (`releaseEachWave`). */
import type { RolloutRequest } from "./request";
import { TERMINAL, type ClusterState } from "./progress";

/**
 * The wave waiting for an approver: the first wave that has not ended, when every wave before it
 * has and none of its clusters has started. Null when no wave waits (or the plan does not ask).
 */
export function waveAwaitingRelease(
  request: RolloutRequest,
  waves: readonly { index: number; releasedAt: string | null }[],
  counts: readonly { wave: number; state: string; count: number }[],
): number | null {
  if (!request.strategy.releaseEachWave) return null;
  // The states present in each wave, in one pass: a viewer's GET costs O(waves + counts), never waves × counts.
  const statesOf = new Map<number, string[]>();
  for (const c of counts) {
    if (c.count <= 0) continue;
    const states = statesOf.get(c.wave);
    if (states) states.push(c.state);
    else statesOf.set(c.wave, [c.state]);
  }
  for (const w of waves) {
    const states = statesOf.get(w.index) ?? [];
    if (states.every((s) => TERMINAL.includes(s as ClusterState))) continue;
    // Skipped clusters were never started: a wave with some is still untouched.
    const untouched = states.every((s) => s === "pending" || s === "waiting-window" || s === "skipped");
    return w.index > 0 && !w.releasedAt && untouched ? w.index : null;
  }
  return null;
}
