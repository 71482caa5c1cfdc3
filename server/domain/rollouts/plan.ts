/**
 * A rollout's waves, planned before anything is written. The grouping follows the field's two
 * references: TALM's ClusterGroupUpgrade (canaries first, then batches of maxConcurrency, clusters
 * in alphabetical order; openshift-kni/cluster-group-upgrades-operator) and Open Cluster
 * Management's rollout strategies (Progressive: batches of maxConcurrency; ProgressivePerGroup:
 * one group at a time; mandatory groups first, tolerating no failure; clusters sorted by name;
 * open-cluster-management-io/sdk-go pkg/apis/cluster/v1alpha1/rollout.go).
 */
import { resolveAmount, type Amount } from "./amount";
import { failureBudget } from "./budget";

export type PlanCandidate = { name: string; labels: Record<string, string> };

export type WaveKind = "canary" | "batch" | "group";

export type PlannedWave = {
  name: string;
  kind: WaveKind;
  /** The label value the wave's clusters share, for a rollout grouped by a label. */
  group: string | null;
  /** A mandatory group's wave: one failure stops the rollout. */
  mandatory: boolean;
  clusters: string[];
};

export type PlanStrategy = {
  /** Named canary clusters, or how many of the selection (the first by name). */
  canaries: string[] | number;
  /** Clusters written at once per wave; absent: a whole group (grouped) or everything left (not grouped). */
  maxConcurrency: Amount | null;
  /** One wave (or several, with maxConcurrency) per value of this label. */
  groupBy: string | null;
  /** Values of `groupBy` rolled out first, in this order, tolerating no failure. */
  mandatoryGroups: string[];
  maxFailures: Amount;
};

export type PlanResult = { ok: true; waves: PlannedWave[]; failureBudget: number } | { ok: false; field: string; reason: string };

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The value a cluster has for the grouping label; clusters without it form a group of their own, last. */
export const noLabelGroup = (label: string) => `(no ${label})`;

export function planWaves(candidates: readonly PlanCandidate[], strategy: PlanStrategy): PlanResult {
  const names = candidates.map((c) => c.name).sort(byName);
  if (!names.length) return { ok: false, field: "selection", reason: "no cluster is left to roll out to" };
  const canaries = pickCanaries(names, strategy.canaries);
  if (!canaries.ok) return canaries;
  const waves: PlannedWave[] = canaries.names.length
    ? [{ name: "canaries", kind: "canary", group: null, mandatory: true, clusters: canaries.names }]
    : [];
  const rest = candidates.filter((c) => !canaries.names.includes(c.name));
  const grouped = strategy.groupBy
    ? groupWaves(rest, strategy.groupBy, strategy)
    : batchWaves(
        rest.map((c) => c.name),
        strategy.maxConcurrency,
      );
  if (!grouped.ok) return grouped;
  waves.push(...grouped.waves);
  return { ok: true, waves, failureBudget: failureBudget(strategy, names.length) };
}

function pickCanaries(
  names: string[],
  canaries: string[] | number,
): { ok: true; names: string[] } | { ok: false; field: string; reason: string } {
  if (typeof canaries === "number") {
    if (canaries >= names.length && canaries > 0)
      return {
        ok: false,
        field: "strategy.canaries",
        reason: `${canaries} canaries would be the whole selection of ${names.length}; leave some clusters for the waves`,
      };
    return { ok: true, names: names.slice(0, canaries) };
  }
  const missing = canaries.filter((name) => !names.includes(name));
  if (missing.length)
    return {
      ok: false,
      field: "strategy.canaries",
      reason: `canary ${missing.slice(0, 3).join(", ")} is not in the selection (or was excluded by its checks)`,
    };
  return { ok: true, names: [...new Set(canaries)].sort(byName) };
}

type Waves = { ok: true; waves: PlannedWave[] } | { ok: false; field: string; reason: string };

function batchWaves(names: string[], maxConcurrency: Amount | null, group: string | null = null, mandatory = false): Waves {
  const sorted = [...names].sort(byName);
  const size = maxConcurrency ? Math.max(1, resolveAmount(maxConcurrency, sorted.length)) : sorted.length;
  const waves: PlannedWave[] = [];
  for (let i = 0; i < sorted.length; i += size) {
    waves.push({ name: "", kind: group === null ? "batch" : "group", group, mandatory, clusters: sorted.slice(i, i + size) });
  }
  waves.forEach((wave, i) => {
    const part = waves.length > 1 ? ` (${i + 1}/${waves.length})` : "";
    wave.name = group === null ? `wave ${i + 1}` : `${group}${part}`;
  });
  return { ok: true, waves };
}

function groupWaves(candidates: readonly PlanCandidate[], label: string, strategy: PlanStrategy): Waves {
  const groups = new Map<string, string[]>();
  for (const candidate of candidates) {
    const value = candidate.labels[label] ?? noLabelGroup(label);
    groups.set(value, [...(groups.get(value) ?? []), candidate.name]);
  }
  const unknown = strategy.mandatoryGroups.filter((g) => !groups.has(g));
  if (unknown.length) return { ok: false, field: "strategy.mandatoryGroups", reason: `no selected cluster has ${label}=${unknown[0]}` };
  const others = [...groups.keys()]
    .filter((g) => !strategy.mandatoryGroups.includes(g))
    .sort((a, b) => (a === noLabelGroup(label) ? 1 : b === noLabelGroup(label) ? -1 : byName(a, b)));
  const waves: PlannedWave[] = [];
  for (const group of [...strategy.mandatoryGroups, ...others]) {
    const mandatory = strategy.mandatoryGroups.includes(group);
    const part = batchWaves(groups.get(group)!, strategy.maxConcurrency, `${label}=${group}`, mandatory);
    if (part.ok) waves.push(...part.waves);
  }
  return { ok: true, waves };
}
