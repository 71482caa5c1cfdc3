/*
 * MachineConfigPools, nodes with their MachineConfigNodes, PinnedImageSets and on-cluster layering
 * builds as a snapshot keeps them. Read defensively, like the rest of normalize.ts.
 */
import type { ClusterSnapshot, Condition, ImageModeFacts, NodeFacts, PoolFacts } from "../domain/snapshot";
import { arr, conditionsOf, isTrue, num, obj, str, type Any } from "./fields";
import { conditionOf } from "../domain/snapshot";

/** Kubernetes quantities as bytes ("114345831029", "125238252Ki", "100Gi"). */
export function quantityBytes(q: string | undefined | null): number | null {
  if (!q) return null;
  const m = /^(\d+(?:\.\d+)?)([KMGTPE]i?|[kmgtpe])?$/.exec(q.trim());
  if (!m) return null;
  const units: Record<string, number> = {
    "": 1,
    k: 1e3,
    K: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
    E: 1e18,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    Pi: 2 ** 50,
    Ei: 2 ** 60,
  };
  const unit = units[m[2] ?? ""];
  return unit === undefined ? null : Math.round(Number(m[1]) * unit);
}

export function buildState(conds: Condition[]): ImageModeFacts["buildState"] {
  if (isTrue(conds, "Succeeded")) return "succeeded";
  if (isTrue(conds, "Failed")) return "failed";
  if (isTrue(conds, "Interrupted")) return "interrupted";
  if (isTrue(conds, "Building") || isTrue(conds, "Prepared")) return "building";
  return "unknown";
}

export function poolFactsOf(pools: Any[], moscs: Any[]): PoolFacts[] {
  const imageModePools = new Set(moscs.map((m) => str(obj(obj(m.spec).machineConfigPool).name)).filter(Boolean));
  return pools
    .map((p) => {
      const status = obj(p.status);
      const conds = conditionsOf(status.conditions);
      return {
        name: String(obj(p.metadata).name),
        machineCount: num(status.machineCount) ?? 0,
        readyMachineCount: num(status.readyMachineCount) ?? 0,
        updatedMachineCount: num(status.updatedMachineCount) ?? 0,
        degradedMachineCount: num(status.degradedMachineCount) ?? 0,
        paused: obj(p.spec).paused === true,
        degraded: isTrue(conds, "Degraded"),
        updating: isTrue(conds, "Updating"),
        buildInterrupted: isTrue(conds, "BuildInterrupted"),
        imageMode: imageModePools.has(String(obj(p.metadata).name)),
        pinnedImageSets: arr(obj(p.spec).pinnedImageSets)
          .map((s) => str(obj(s).name))
          .filter((s): s is string => !!s)
          .sort(),
        degradedMessage: isTrue(conds, "Degraded") ? (conditionOf(conds, "Degraded")?.message ?? null) : null,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** A node's MachineConfigNode entries: how far each PinnedImageSet has got on it. */
export function pinnedOnNode(mcnStatus: Any): NodeFacts["pinned"] {
  return arr(mcnStatus.pinnedImageSets)
    .map(obj)
    .filter((e) => str(e.name))
    .map((e) => ({
      set: String(e.name),
      currentGeneration: num(e.currentGeneration),
      desiredGeneration: num(e.desiredGeneration),
      lastFailedGeneration: num(e.lastFailedGeneration),
      error: str(e.lastFailedGenerationError),
    }))
    .sort((a, b) => a.set.localeCompare(b.set));
}

export function nodeFactsOf(nodes: Any[], mcns: Any[]): NodeFacts[] {
  const mcnByNode = new Map(mcns.map((m) => [String(obj(m.metadata).name), m]));
  return nodes
    .map((n) => {
      const meta = obj(n.metadata);
      const name = String(meta.name);
      const status = obj(n.status);
      const mcn = mcnByNode.get(name);
      const mcnStatus = obj(mcn?.status);
      const mcnConds = conditionsOf(mcnStatus.conditions);
      const labels = obj(meta.labels) as Record<string, string>;
      const annotations = obj(meta.annotations) as Record<string, string>;
      const nodeConds = conditionsOf(status.conditions);
      const ready = conditionOf(nodeConds, "Ready");
      const diskPressure = conditionOf(nodeConds, "DiskPressure");
      return {
        name,
        pool: str(obj(obj(mcn?.spec).pool).name),
        roles: Object.keys(labels)
          .filter((k) => k.startsWith("node-role.kubernetes.io/"))
          .map((k) => k.slice("node-role.kubernetes.io/".length))
          .sort(),
        osImage: str(obj(status.nodeInfo).osImage),
        ready: ready ? ready.status === "True" : null,
        diskPressure: diskPressure ? diskPressure.status === "True" : null,
        ephemeralBytes: quantityBytes(str(obj(status.allocatable)["ephemeral-storage"])),
        mcoState: str(annotations["machineconfiguration.openshift.io/state"]),
        pinned: pinnedOnNode(mcnStatus),
        pinnedProgressing: isTrue(mcnConds, "PinnedImageSetsProgressing"),
        pinnedDegraded: isTrue(mcnConds, "PinnedImageSetsDegraded"),
        pinnedMessage:
          conditionOf(mcnConds, "PinnedImageSetsDegraded")?.status === "True"
            ? (conditionOf(mcnConds, "PinnedImageSetsDegraded")?.message ?? null)
            : null,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function imageModeFactsOf(moscs: Any[], mosbs: Any[]): ImageModeFacts[] {
  const buildByName = new Map(mosbs.map((b) => [String(obj(b.metadata).name), b]));
  return moscs
    .map((m) => {
      const build =
        str(obj(obj(m.status).machineOSBuild).name) ??
        str(obj(obj(m.metadata).annotations)["machineconfiguration.openshift.io/current-machine-os-build"]);
      const mosb = build ? buildByName.get(build) : undefined;
      return {
        pool: str(obj(obj(m.spec).machineConfigPool).name) ?? String(obj(m.metadata).name),
        build,
        buildState: mosb ? buildState(conditionsOf(obj(mosb.status).conditions)) : ("unknown" as const),
      };
    })
    .sort((a, b) => a.pool.localeCompare(b.pool));
}

export function pinnedImageSetFactsOf(pinnedSets: Any[]): ClusterSnapshot["pinnedImageSets"] {
  return pinnedSets
    .map((s) => ({
      name: String(obj(s.metadata).name),
      images: arr(obj(s.spec).pinnedImages).length,
      generation: num(obj(s.metadata).generation),
      labels: obj(obj(s.metadata).labels) as Record<string, string>,
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
