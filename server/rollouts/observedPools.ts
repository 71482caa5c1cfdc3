/**
 * The MachineConfigPools of a cluster as an upgrade's follow reads them: the pools listed, none
 * when the kind is not served (a cluster without the MCO's API has no pools to wait for), or why
 * they could not be listed (an error answer, a timeout, an answer too large), which leaves the step
 * running: a failed list is not "no pools" (server/domain/rollouts/upgradeProgress.ts).
 */
import { clusterAnswer } from "../clusters/access";
import type { ObservedPools } from "../domain/rollouts/upgradeProgress";
import type { readMachineConfigPools } from "../kube/readers";

export function observedPools(pools: Awaited<ReturnType<typeof readMachineConfigPools>>): ObservedPools {
  if (pools.status === "ok") return pools.items.map((p) => ({ name: p.metadata.name, conditions: p.status?.conditions ?? [] }));
  if (pools.status === "not-available" && pools.missing === "kind") return [];
  return { unread: pools.status === "error" ? clusterAnswer(pools.error) : pools.reason };
}
