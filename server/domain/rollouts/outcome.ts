/**
 * How a wave reads from its clusters' states, each end state counted as it is: a wave whose
 * clusters were all skipped was skipped, not succeeded; one where some succeeded and the rest were
 * skipped says so. Pure, from counts per state, so the page costs O(waves × states).
 */
export const WAVE_STATES = [
  "pending",
  "waiting-for-window",
  "awaiting-release",
  "running",
  "succeeded",
  "failed",
  "skipped",
  "partly-skipped",
] as const;
export type WaveState = (typeof WAVE_STATES)[number];

/** The state of a wave from its clusters per state (awaiting-release is the release rule's, release.ts). */
export function waveState(counts: Readonly<Record<string, number>>): Exclude<WaveState, "awaiting-release"> {
  const n = (s: string) => counts[s] ?? 0;
  const total = Object.entries(counts).reduce((sum, [state, count]) => (state === "excluded" ? sum : sum + count), 0);
  if (n("running")) return "running";
  if (n("pending") + n("waiting-window") === total) return n("waiting-window") ? "waiting-for-window" : "pending";
  if (n("succeeded") + n("failed") + n("skipped") !== total) return "running";
  if (n("failed")) return "failed";
  if (n("succeeded") === total) return "succeeded";
  return n("succeeded") ? "partly-skipped" : "skipped";
}
