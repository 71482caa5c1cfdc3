/**
 * A number of clusters or a percentage of them, as TALM's maxConcurrency and Open Cluster
 * Management's maxConcurrency/maxFailures are written (`intstr.IntOrString`: `10` or `"25%"`).
 */
export type Amount = { count: number } | { percent: number };

export type AmountResult = { ok: true; amount: Amount } | { ok: false; reason: string };

export function parseAmount(value: number | string, { min }: { min: 0 | 1 }): AmountResult {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < min)
      return { ok: false, reason: `must be a whole number of at least ${min}, or a percentage such as 25%` };
    return { ok: true, amount: { count: value } };
  }
  const match = /^(\d{1,3})%$/.exec(value.trim());
  if (match) {
    const percent = Number(match[1]);
    if (percent > 100) return { ok: false, reason: `${value} is over 100%` };
    if (percent < min) return { ok: false, reason: `must be at least ${min}%` };
    return { ok: true, amount: { percent } };
  }
  if (/^\d+$/.test(value.trim())) return parseAmount(Number(value.trim()), { min });
  return { ok: false, reason: `"${value}" is neither a number nor a percentage such as 25%` };
}

/**
 * How many of `total` clusters an amount means. A percentage rounds up, as Open Cluster Management
 * computes both maxConcurrency and maxFailures (open-cluster-management-io/sdk-go
 * pkg/apis/cluster/v1alpha1/rollout.go, `calculateRolloutSize`: `math.Ceil(f / 100 * total)`), so
 * 10% of 5 clusters is 1 and a rollout always moves. Unlike OCM, which falls back to its default
 * when the result exceeds the total (maxFailures 100 over 50 clusters tolerating none), a count
 * larger than the total means all of them.
 */
export function resolveAmount(amount: Amount, total: number): number {
  const exact = "count" in amount ? amount.count : Math.ceil((amount.percent * total) / 100);
  return Math.min(exact, total);
}
