import { selectorMatches, type LabelSelector } from "./labelSelector";
import type { PrecheckPool } from "./precheck";

/* Which pools a PinnedImageSet lands in, and the labels that aim one at a pool (docs/openshift.md §21.3). */

/**
 * A selector with no requirement (nil, or neither matchLabels nor matchExpressions): what
 * `metav1.LabelSelectorAsSelector` turns into `labels.Everything()`, whose `Empty()` is true.
 */
export const selectorIsEmpty = (selector: LabelSelector | null | undefined) =>
  !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);

/**
 * Pools a PinnedImageSet with these labels lands in, as the MCO selects them (docs/openshift.md §21.3):
 * `getPoolsForPinnedImageSet` (pkg/controller/pinnedimageset/pinned_image_set.go) skips a pool whose
 * machineConfigSelector is nil or empty ("it should match nothing, not everything").
 */
export function poolsSelecting(pools: Pick<PrecheckPool, "name" | "machineConfigSelector">[], labels: Record<string, string>): string[] {
  return pools
    .filter((p) => !selectorIsEmpty(p.machineConfigSelector) && selectorMatches(p.machineConfigSelector, labels))
    .map((p) => p.name);
}

export const ROLE_LABEL = "machineconfiguration.openshift.io/role";

/**
 * Labels that put a PinnedImageSet in `pool`: the MCO gives a set to every pool whose
 * machineConfigSelector matches its labels (docs/openshift.md §21.3), so the labels come from the pool's own
 * selector. Candidates are the usual `role: <pool>`, the selector's matchLabels, and each value of
 * its `In` expressions; of those the pool selects, the one fewest other pools select wins (a custom
 * pool such as infra usually selects `role In [worker, infra]`: `role: infra` keeps the worker pool
 * out). Null when no candidate is selected by the pool, and for a pool with an empty selector, to
 * which the MCO gives no set at all.
 */
export function labelsForPool(
  pool: Pick<PrecheckPool, "name" | "machineConfigSelector">,
  pools: Pick<PrecheckPool, "name" | "machineConfigSelector">[],
): Record<string, string> | null {
  const selector = pool.machineConfigSelector;
  if (selectorIsEmpty(selector)) return null;
  const candidates: Record<string, string>[] = [{ [ROLE_LABEL]: pool.name }];
  if (selector?.matchLabels && Object.keys(selector.matchLabels).length) candidates.push({ ...selector.matchLabels });
  for (const e of selector?.matchExpressions ?? [])
    if (e.operator === "In") for (const v of e.values ?? []) candidates.push({ ...selector?.matchLabels, [e.key]: v });
  const fitting = candidates.filter((c) => selectorMatches(selector, c));
  if (!fitting.length) return null;
  return fitting.map((labels) => ({ labels, others: poolsSelecting(pools, labels).length })).sort((a, b) => a.others - b.others)[0]!.labels;
}
