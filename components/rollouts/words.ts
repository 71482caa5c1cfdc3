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
  excluded: { label: "Excluded", className: "bg-canvas" },
};

export const STATUS_WORDS: Record<string, string> = {
  "awaiting-approval": "Waiting for approval",
  running: "Running",
  paused: "Paused",
  completed: "Completed",
  aborted: "Aborted",
};

/** `5400000` → "1 h 30 min": an estimate as people say it. */
export function spoken(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  return [days ? `${days} d` : "", hours ? `${hours} h` : "", rest || (!days && !hours) ? `${rest} min` : ""].filter(Boolean).join(" ");
}

/** One wave as a bar: a segment per state, as wide as its share of the wave. */
export function stateSegments(counts: Record<string, number>, total: number) {
  const order = ["succeeded", "failed", "running", "waiting-window", "pending", "skipped"];
  return order
    .filter((s) => (counts[s] ?? 0) > 0)
    .map((s) => ({ state: s, count: counts[s]!, width: `${(100 * counts[s]!) / Math.max(1, total)}%`, ...STATE_WORDS[s]! }));
}
