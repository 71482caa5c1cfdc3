import type { KubeObject } from "../../objectStore";
import { uidOf } from "../random";
import type { ClusterPlan } from "../plan";

/** MachineConfigPools (an empty worker pool is left out), with the pinned-image synchroniser of the worker pool. */
export function machineConfigPools(plan: ClusterPlan): KubeObject[] {
  const { p, pools, hasPins, pinnedName, doneNodes, template } = plan;
  const byName = new Map(template("MachineConfigPool").map((pool) => [pool.metadata.name!, pool]));
  return pools
    .filter(({ name, count }) => count > 0 || name !== "worker")
    .map(({ name, count }) => {
      const pool = structuredClone(byName.get(name)!) as KubeObject & { spec: Record<string, unknown>; status: Record<string, unknown> };
      pool.metadata = { ...pool.metadata, uid: uidOf(`${p.name}/mcp/${name}`) };
      const pinned = name === "worker" && hasPins;
      pool.spec.pinnedImageSets = pinned ? [{ name: pinnedName }] : [];
      Object.assign(pool.status, {
        machineCount: count,
        updatedMachineCount: count,
        readyMachineCount: count,
        unavailableMachineCount: 0,
        degradedMachineCount: 0,
      });
      pool.status.poolSynchronizersStatus = pinned
        ? [
            {
              poolSynchronizerType: "PinnedImageSets",
              machineCount: count,
              updatedMachineCount: doneNodes,
              readyMachineCount: doneNodes,
              availableMachineCount: doneNodes,
              unavailableMachineCount: 0,
              observedGeneration: 2,
            },
          ]
        : [];
      return pool;
    });
}
