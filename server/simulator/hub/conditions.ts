/** metav1.Condition as the hub's controllers set it. */
export type Condition = { type: string; status: string; reason: string; message: string; lastTransitionTime?: string };

/** meta.SetStatusCondition: replaces the condition of that type, keeping its transition time when the status is unchanged. */
export function setCondition(conditions: Condition[] | undefined, next: Condition, now: string): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const at = i >= 0 && list[i]!.status === next.status ? list[i]!.lastTransitionTime : now;
  const merged = { ...next, lastTransitionTime: at ?? now };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

/** Go's time.Duration text ("8640h0m0s", "90m", "1h30m") in milliseconds. */
export function parseGoDuration(text: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)) total += Number(m[1]) * units[m[2]!]!;
  return total;
}
