import type { KubeObject } from "../../objectStore";
import { machineConfigsForPools } from "../machineConfigs";
import { uidOf } from "../random";
import type { ClusterPlan } from "../plan";

/** The worker pool's PinnedImageSet, when the plan pins images. */
export function pinnedImageSets({ p, hasPins, pinnedName, template }: ClusterPlan): KubeObject[] {
  if (!hasPins) return [];
  const pis = structuredClone(template("PinnedImageSet").find((o) => o.metadata.name === pinnedName)!);
  pis.metadata = { ...pis.metadata, uid: uidOf(`${p.name}/pis`) };
  return [pis];
}

/** The infra pool's MachineOSConfig and its succeeded MachineOSBuild (image mode). */
export function imageMode({ p, template }: ClusterPlan): KubeObject[] {
  return p.imageMode ? ["MachineOSConfig", "MachineOSBuild"].map((kind) => structuredClone(template(kind)[0]!)) : [];
}

/** Source and rendered MachineConfigs by the names the pools list, so every cluster can be previewed. */
export function machineConfigs(plan: ClusterPlan, pools: KubeObject[]): KubeObject[] {
  return machineConfigsForPools(pools, plan.osImageURL);
}
