import { withClusterClient } from "../clusters/access";
import { normalizeSnapshot } from "../collector/normalize";
import { selectorMatches, type LabelSelector } from "../domain/labelSelector";
import type { ClusterSnapshot } from "../domain/snapshot";
import { UserFacingError } from "../errors";
import type { ClusterClient } from "../kube/client";
import { readClusterObjects, type ClusterObjects } from "../kube/readers";
import type { AuditInput } from "../store/audit";

/**
 * Applying a vetted bundle to a cluster reads the cluster live at every step (prechecks, progress,
 * start); this is that read, and how its pools and nodes are told apart.
 */
export type Who = Pick<AuditInput, "actor" | "role" | "ip" | "grant">;
/** Work Fleetskew does by itself (resuming an application, following an upgrade). */
export const SYSTEM: Who = { actor: null, role: null, ip: null };

export type Live = { client: ClusterClient; objects: ClusterObjects; snapshot: ClusterSnapshot };

export async function readLive(client: ClusterClient, cluster: string): Promise<Live> {
  const objects = await readClusterObjects(client);
  const failures = Object.values(objects).filter((r) => r.status === "error");
  if (failures.length === Object.keys(objects).length) {
    const first = failures[0]!;
    throw new UserFacingError(503, `cannot read ${cluster} now: ${first.status === "error" ? first.error.message : ""}`);
  }
  if (objects.pinnedImageSets.status === "not-available")
    throw new UserFacingError(
      422,
      `${cluster} does not serve PinnedImageSet (machineconfiguration.openshift.io/v1, OpenShift 4.19 and later), so Fleetskew cannot pre-load images there`,
    );
  return { client, objects, snapshot: normalizeSnapshot(objects) };
}

export type PoolSpec = { name: string; machineConfigSelector?: LabelSelector; nodeSelector?: LabelSelector };

export function poolsOf(live: Live): PoolSpec[] {
  if (live.objects.pools.status !== "ok") return [];
  return live.objects.pools.items.map((p) => {
    const spec = (p.spec ?? {}) as { machineConfigSelector?: LabelSelector; nodeSelector?: LabelSelector };
    return { name: p.metadata.name, machineConfigSelector: spec.machineConfigSelector, nodeSelector: spec.nodeSelector };
  });
}

/**
 * Each node's pool: as its MachineConfigNode says, else the pool whose node selector matches it
 * (a custom pool before worker, as the MCO assigns a node to the custom pool).
 */
export function nodePools(live: Live): Map<string, string> {
  const pools = poolsOf(live).sort((a, b) => Number(a.name === "worker") - Number(b.name === "worker"));
  const labels = new Map(
    live.objects.nodes.status === "ok" ? live.objects.nodes.items.map((n) => [n.metadata.name, n.metadata.labels ?? {}] as const) : [],
  );
  const result = new Map<string, string>();
  for (const n of live.snapshot.nodes) {
    const pool = n.pool ?? pools.find((p) => p.nodeSelector && selectorMatches(p.nodeSelector, labels.get(n.name) ?? {}))?.name;
    if (pool) result.set(n.name, pool);
  }
  return result;
}

/** Reads a cluster live with its pools and the pool of each node, for reading progress. */
export async function readLivePools(cluster: string): Promise<{ snapshot: ClusterSnapshot; pools: Map<string, string> }> {
  return withClusterClient(cluster, async (client) => {
    const live = await readLive(client, cluster);
    return { snapshot: live.snapshot, pools: nodePools(live) };
  });
}
