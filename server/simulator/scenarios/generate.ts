import type { ClusterSpec } from "../cluster";
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
import { paramsFor, type ClusterParams } from "./params";
import { planFor, type ClusterPlan } from "./plan";
import { prodEast422Objects, prodEastObjects } from "./prodEast";
import { hexOf } from "./random";
import { REGISTRY_LESS_CLUSTER, registryLessSpec } from "./registryLess";
import { settle } from "./settle";

export { paramsFor, type ClusterParams, type Enforcement, type PinnedState, type Platform, type Topology } from "./params";

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

/**
 * The fleet for `--clusters N --seed S`: the two reference clusters, the registry-less one, then
 * N-3 generated ones.
 */
export function generateFleet(count: number, seed: number): ClusterSpec[] {
  const specs: ClusterSpec[] = [
    {
      name: "prod-east",
      ocpVersion: "4.19.10",
      token: tokenFor("prod-east", seed),
      readOnlyToken: tokenFor("prod-east-reader", seed),
      objects: prodEastObjects,
    },
    {
      name: "prod-east-422",
      ocpVersion: "4.22.3",
      token: tokenFor("prod-east-422", seed),
      readOnlyToken: tokenFor("prod-east-422-reader", seed),
      objects: prodEast422Objects,
    },
    registryLessSpec({
      token: tokenFor(REGISTRY_LESS_CLUSTER, seed),
      readOnlyToken: tokenFor(`${REGISTRY_LESS_CLUSTER}-reader`, seed),
    }),
  ];
  for (let i = 0; specs.length < count; i++) {
    const params = paramsFor(i, seed);
    specs.push({
      name: params.name,
      ocpVersion: params.history[0]!,
      token: tokenFor(params.name, seed),
      readOnlyToken: tokenFor(`${params.name}-reader`, seed),
      faults: params.faults,
      objects: () => generatedObjects(params),
    });
  }
  return specs.slice(0, Math.max(count, 0));
}

export const tokenFor = (name: string, seed: number) => `sha256~${hexOf(`${seed}/${name}`, 43)}`;
