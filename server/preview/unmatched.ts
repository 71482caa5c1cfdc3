import type { LabelSelector } from "../domain/labelSelector";

/**
 * Why a proposed MachineConfig does nothing on a cluster, said from what the cluster lacks: a
 * MachineConfig reaches nodes only through a MachineConfigPool whose machineConfigSelector selects
 * its labels (docs/openshift.md §21.1). "Label it like role: worker" is wrong advice when it already is;
 * the cluster then has no pool that selects that label, and the pools it has are listed.
 */
const PREFIX = "machineconfiguration.openshift.io/";
const short = (key: string) => (key.startsWith(PREFIX) ? key.slice(PREFIX.length) : key);
const pairs = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${short(k)}: ${v}`)
    .join(", ");

function selectorText(selector: LabelSelector | null | undefined): string {
  if (!selector) return "nothing";
  const parts = [
    ...Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${short(k)}: ${v}`),
    ...(selector.matchExpressions ?? []).map((e) => `${short(e.key)} ${e.operator}${e.values?.length ? ` (${e.values.join(", ")})` : ""}`),
  ];
  return parts.length ? parts.join(", ") : "every MachineConfig";
}

export type PoolSelecting = { name: string; selector: LabelSelector | null | undefined; machines: number };

/** What the advice needs of a MachineConfigPool as the cluster returns it. */
export const poolSelecting = (pool: { metadata: { name: string }; spec?: unknown; status?: unknown }): PoolSelecting => ({
  name: pool.metadata.name,
  selector: (pool.spec as { machineConfigSelector?: LabelSelector } | undefined)?.machineConfigSelector,
  machines: (pool.status as { machineCount?: number } | undefined)?.machineCount ?? 0,
});

export function unmatchedAdvice(cluster: string, labels: Record<string, string> | undefined, pools: PoolSelecting[]): string {
  if (!labels || !Object.keys(labels).length)
    return `this MachineConfig has no labels, so no pool of ${cluster} selects it; give it the label its pool selects, such as machineconfiguration.openshift.io/role: worker`;
  if (!pools.length) return `${cluster} has no MachineConfigPools, so this MachineConfig changes nothing there`;
  const theirs = pools
    .map((p) => `${p.name} selects ${selectorText(p.selector)} (${p.machines} machine${p.machines === 1 ? "" : "s"})`)
    .join("; ");
  return `${cluster} has no pool that selects ${pairs(labels)}, so this change does nothing there; its pools: ${theirs}`;
}
