import type { KubeObject } from "../objectStore";
import { infrastructure, namespaces, provisioning } from "./builders/basics";
import { machineConfigOperator } from "./builders/clusterOperator";
import { clusterVersion } from "./builders/clusterVersion";
import { adminAcks, adminGates, bootImagesConfigMap } from "./builders/configMaps";
import { machineConfiguration } from "./builders/machineConfiguration";
import { machineSets } from "./builders/machineSets";
import { machineConfigNodes, nodes } from "./builders/nodes";
import { machineConfigPools } from "./builders/pools";
import { imageMode, machineConfigs, pinnedImageSets } from "./builders/workloads";
import type { ClusterParams } from "./params";
import { planFor, type ClusterPlan } from "./plan";
import { settle } from "./settle";

/**
 * One generated cluster's objects. Apart from generate.ts, which lists the whole fleet, so that a
 * scenario the fleet includes (registryLess.ts) can build its cluster the same way.
 */

/** One builder per kind, in the order the cluster's objects are listed; each reads only the plan. */
const BUILDERS: ((plan: ClusterPlan) => KubeObject[])[] = [
  namespaces,
  infrastructure,
  provisioning,
  clusterVersion,
  machineConfigOperator,
  machineConfiguration,
  bootImagesConfigMap,
  adminGates,
  adminAcks,
  machineSets,
  machineConfigPools,
  nodes,
  machineConfigNodes,
  pinnedImageSets,
  imageMode,
];

/** A cluster's objects as its builders make them, before any operator has acted on them. */
export function builtObjects(plan: ClusterPlan): KubeObject[] {
  const objects = BUILDERS.flatMap((build) => build(plan));
  objects.push(
    ...machineConfigs(
      plan,
      objects.filter((o) => o.kind === "MachineConfigPool"),
    ),
  );
  return objects;
}

/** The objects of one generated cluster: built from its plan, then settled by the simulated MCO and CVO. */
export function generatedObjects(p: ClusterParams): KubeObject[] {
  const plan = planFor(p);
  return settle(plan, builtObjects(plan));
}
