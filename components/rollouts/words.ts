/** How rollout and cluster states read and look, wherever they are shown. */
export const STATE_WORDS: Record<string, { label: string; className: string }> = {
  pending: { label: "Pending", className: "bg-line" },
  "waiting-window": { label: "Waiting for window", className: "bg-warn" },
  "waiting-for-window": { label: "Waiting for window", className: "bg-warn" },
  "awaiting-release": { label: "Waiting to be released", className: "bg-warn" },
  running: { label: "Running", className: "bg-accent" },
  succeeded: { label: "Succeeded", className: "bg-ok" },
  failed: { label: "Failed", className: "bg-danger" },
  skipped: { label: "Skipped", className: "bg-muted" },
  "partly-skipped": { label: "Partly skipped", className: "bg-muted" },
  excluded: { label: "Excluded", className: "bg-canvas" },
};

export const STATUS_WORDS: Record<string, string> = {
  "awaiting-approval": "Waiting for approval",
  running: "Running",
  paused: "Paused",
  completed: "Completed",
  aborted: "Aborted",
};

/** The states a cluster ends in, and the waves that ended. */
export const END_STATES = ["succeeded", "failed", "skipped"] as const;
export const ENDED_WAVE_STATES = ["succeeded", "failed", "skipped", "partly-skipped"];

/** "1 succeeded, 2 skipped": how a wave or rollout ended, each end state counted as it is. */
export function endedWords(counts: Record<string, number>): string {
  return END_STATES.filter((s) => (counts[s] ?? 0) > 0)
    .map((s) => `${counts[s]} ${s}`)
    .join(", ");
}

/**
 * The rollout's headline. A completed rollout reads "Completed" only when every cluster it
 * included succeeded; otherwise it says how many did, so skipped clusters never read as a success.
 */
export function statusHeadline(view: { status: string; counts: Record<string, number>; included: number }): string {
  const words = STATUS_WORDS[view.status] ?? view.status;
  if (view.status !== "completed") return words;
  const succeeded = view.counts.succeeded ?? 0;
  if (succeeded === view.included) return words;
  return `${words}: ${succeeded} of ${view.included} ${view.included === 1 ? "cluster" : "clusters"} succeeded`;
}

/** One wave as a bar: a segment per state, as wide as its share of the wave. */
export function stateSegments(counts: Record<string, number>, total: number) {
  const order = ["succeeded", "failed", "running", "waiting-window", "pending", "skipped"];
  return order
    .filter((s) => (counts[s] ?? 0) > 0)
    .map((s) => ({ state: s, count: counts[s]!, width: `${(100 * counts[s]!) / Math.max(1, total)}%`, ...STATE_WORDS[s]! }));
}
