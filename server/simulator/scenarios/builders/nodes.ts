import type { KubeObject } from "../../objectStore";
import { uidOf } from "../random";
import type { ClusterPlan } from "../plan";

const nodeName = ({ p }: ClusterPlan, pool: string, i: number) => `${p.infraId}-${pool}-${i}`;

/** Nodes of every pool, running the current release's RHCOS; the worker whose pre-load fails has too little disk (§21.3). */
export function nodes(plan: ClusterPlan): KubeObject[] {
  const { p, minor, pools, failedNode, rhcosRunning, template } = plan;
  const [master, worker] = [template("Node")[0]!, template("Node")[1]!];
  return pools.flatMap(({ name: pool, count }) =>
    Array.from({ length: count }, (_, i) => {
      const name = nodeName(plan, pool, i);
      const node = structuredClone(pool === "master" ? master : worker) as KubeObject & {
        status: { nodeInfo: Record<string, string>; allocatable: Record<string, string> };
      };
      const roles =
        pool === "master"
          ? {
              "node-role.kubernetes.io/master": "",
              "node-role.kubernetes.io/control-plane": "",
              ...(p.topology !== "standard" ? { "node-role.kubernetes.io/worker": "" } : {}),
            }
          : { [`node-role.kubernetes.io/${pool}`]: "" };
      node.metadata = {
        name,
        uid: uidOf(`${p.name}/node/${name}`),
        labels: {
          "kubernetes.io/hostname": name,
          "kubernetes.io/arch": "amd64",
          "kubernetes.io/os": "linux",
          "node.openshift.io/os_id": "rhcos",
          ...roles,
        },
        annotations: node.metadata.annotations,
      };
      node.status.nodeInfo = {
        ...node.status.nodeInfo,
        osImage: `Red Hat Enterprise Linux CoreOS ${rhcosRunning} (Plow)`,
        kubeletVersion: `v1.${minor + 13}.7`,
      };
      if (pool === "worker" && i === failedNode)
        node.status.allocatable = { ...node.status.allocatable, "ephemeral-storage": String(20 * 1024 ** 3) };
      return node;
    }),
  );
}

type Condition = { type: string; status: string; reason?: string; message?: string };

/** MachineConfigNodes (4.19 on), with each worker's pinned-image progress as the plan has it. */
export function machineConfigNodes(plan: ClusterPlan): KubeObject[] {
  const { p, minor, pools, hasPins, pinnedName, failedNode, doneNodes, template } = plan;
  const mcnTemplate = template("MachineConfigNode")[0];
  if (minor < 19 || !mcnTemplate) return [];
  return pools.flatMap(({ name: pool, count }) =>
    Array.from({ length: count }, (_, i) => {
      const name = nodeName(plan, pool, i);
      const mcn = structuredClone(mcnTemplate) as KubeObject & {
        spec: Record<string, unknown>;
        status: { pinnedImageSets?: unknown[]; conditions: Condition[] };
      };
      mcn.metadata = { name, uid: uidOf(`${p.name}/mcn/${name}`) };
      mcn.spec = { ...mcn.spec, node: { name }, pool: { name: pool } };
      let pins: unknown[] = [];
      let progressing = false;
      let degraded = false;
      if (pool === "worker" && hasPins) {
        if (i === failedNode) {
          pins = [
            {
              name: pinnedName,
              currentGeneration: 1,
              desiredGeneration: 2,
              lastFailedGeneration: 2,
              lastFailedGenerationError: "storage available is less than minimum required",
            },
          ];
          degraded = true;
        } else if (i < doneNodes) pins = [{ name: pinnedName, currentGeneration: 2, desiredGeneration: 2 }];
        else {
          pins = [{ name: pinnedName, currentGeneration: 1, desiredGeneration: 2 }];
          progressing = true;
        }
      }
      mcn.status.pinnedImageSets = pins;
      mcn.status.conditions = mcn.status.conditions.map((c) =>
        c.type === "PinnedImageSetsProgressing"
          ? progressing
            ? { ...c, status: "True", reason: "ImagePrefetch", message: `node is prefetching images: ${name}` }
            : { ...c, status: "False", reason: "AsExpected", message: "All is good" }
          : c.type === "PinnedImageSetsDegraded"
            ? degraded
              ? {
                  ...c,
                  status: "True",
                  reason: "PrefetchFailed",
                  message: "One or more PinnedImageSet is experiencing an error. See PinnedImageSet list for more details.",
                }
              : { ...c, status: "False", reason: "AsExpected", message: "All is good" }
            : c.type === "Updated"
              ? { ...c, message: `Node ${name} Updated` }
              : c,
      );
      return mcn;
    }),
  );
}
