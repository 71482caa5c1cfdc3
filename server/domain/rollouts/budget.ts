/**
 * The failure budget: how many of a rollout's clusters may fail before it stops. One function, so
 * the plan, the rollout's page, the runner and /metrics cannot disagree on when a rollout pauses.
 *
 * maxFailures is over the clusters the rollout includes (excluded ones never run, so never fail),
 * a percentage rounded up as Open Cluster Management rounds it (amount.ts).
 */
import { resolveAmount, type Amount } from "./amount";

export function failureBudget(strategy: { readonly maxFailures: Amount }, included: number): number {
  return resolveAmount(strategy.maxFailures, Math.max(0, included));
}
