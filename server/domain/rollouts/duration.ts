/**
 * Durations as Kubernetes writes them (Go's time.ParseDuration: `30m`, `2h`, `1h30m`, `90s`), the
 * form TALM's and Open Cluster Management's rollout strategies use for minSuccessTime and
 * progressDeadline (open-cluster-management-io/api cluster/v1alpha1/types_rolloutstrategy.go,
 * `metav1.Duration`). Units from hours down to seconds; milliseconds and smaller make no sense
 * for a rollout and are refused rather than rounded.
 */
const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000 };
const DURATION = /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$/;

export type DurationResult = { ok: true; ms: number } | { ok: false; reason: string };

export function parseDuration(text: string): DurationResult {
  const trimmed = text.trim();
  const match = DURATION.exec(trimmed);
  if (!trimmed || !match || match.slice(1).every((part) => part === undefined)) {
    return { ok: false, reason: `"${text}" is not a duration; write it as Kubernetes does, such as 30m, 2h or 1h30m` };
  }
  const [h, m, s] = match.slice(1).map((part) => Number(part ?? 0));
  const ms = Math.round(h! * UNIT_MS.h! + m! * UNIT_MS.m! + s! * UNIT_MS.s!);
  return { ok: true, ms };
}

/** `5400000` → `1h30m`: a duration written back in the form the plan takes it (a form's prefilled value); people read durations as format.ts writes them. */
export function kubernetesDuration(ms: number): string {
  if (ms <= 0) return "0s";
  const h = Math.floor(ms / UNIT_MS.h!);
  const m = Math.floor((ms % UNIT_MS.h!) / UNIT_MS.m!);
  const s = Math.round((ms % UNIT_MS.m!) / UNIT_MS.s!);
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s ? `${s}s` : ""}` || "0s";
}
