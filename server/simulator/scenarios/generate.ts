import type { ClusterSpec } from "../cluster";
import { generatedObjects } from "./objects";
import { paramsFor } from "./params";
import { prodEast422Objects, prodEastObjects } from "./prodEast";
import { hexOf } from "./random";
import { REGISTRY_LESS_CLUSTER, registryLessSpec } from "./registryLess";

export { builtObjects, generatedObjects } from "./objects";
export { paramsFor, type ClusterParams, type Enforcement, type PinnedState, type Platform, type Topology } from "./params";

/**
 * The fleet for `--clusters N --seed S`: the two reference clusters, the registry-less one, then
 * N-3 generated ones. Every cluster's Thanos querier reports the quiet alerts of a healthy cluster,
 * but every 11th generated one fires a critical alert and a PodDisruptionBudget alert (monitoring.ts).
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
      // Every 11th generated cluster fires a critical alert and a PodDisruptionBudget at its limit (no random draw, so the other parameters stay as they were).
      ...(i % 11 === 4 ? { monitoring: { alerts: "critical-and-pdb" as const } } : {}),
      objects: () => generatedObjects(params),
    });
  }
  return specs.slice(0, Math.max(count, 0));
}

export const tokenFor = (name: string, seed: number) => `sha256~${hexOf(`${seed}/${name}`, 43)}`;
