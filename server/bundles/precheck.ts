import type { Actor } from "../auth/actor";
import { requireOverCluster } from "../auth/clusterAuthority";
import { withClusterClient } from "../clusters/access";
import { formatBytes, totalBytes, type BundleManifest } from "../domain/bundleManifest";
import { alwaysPullPod, precheckBundle, type PodLike, type PrecheckInput } from "../domain/bundlePrechecks";
import { noSuchCluster } from "../errors";
import { readPods } from "../kube/readers";
import { findClusterSummary } from "../store/clusters";
import { bundleOrThrow } from "./bundles";
import type { PrecheckResult } from "./contract";
import { nodePools, poolsOf, readLive, type Live } from "./live";

/** What stands in the way of applying a bundle to a cluster, read live from the cluster. */
export type { PrecheckResult };

type NodeLike = { status?: Record<string, unknown> };
type Item = { type?: unknown; status?: unknown; names?: unknown } | null;

/**
 * What the MCO's checks read of a node besides its allocatable storage: Ready and DiskPressure as
 * served (`checkNodeReady`: Unknown counts) and the images it holds (`status.images[].names`, which
 * the kubelet caps at 50 by default; an image beyond those is counted as missing, the stricter way).
 */
function prefetchDetails(node: NodeLike): { conditions: { type: string; status: string }[]; images: string[] } {
  const status = node.status ?? {};
  const list = (v: unknown): Item[] => (Array.isArray(v) ? v : []);
  const conditions = list(status.conditions)
    .filter((c) => (c?.type === "Ready" || c?.type === "DiskPressure") && typeof c.status === "string")
    .map((c) => ({ type: c!.type as string, status: c!.status as string }));
  const images = list(status.images).flatMap((i) =>
    Array.isArray(i?.names) ? i.names.filter((n): n is string => typeof n === "string") : [],
  );
  return { conditions, images };
}

export async function precheckOn(live: Live, cluster: string, digest: string, manifest: BundleManifest): Promise<PrecheckResult> {
  const pods = await readPods(live.client);
  const pools = nodePools(live);
  const unavailable: PrecheckInput["unavailable"] = [];
  if (pods.status !== "ok") unavailable.push({ part: "pods", reason: pods.status === "error" ? pods.error.message : pods.reason });
  if (live.objects.pinnedImageSets.status === "error")
    unavailable.push({ part: "pinned image sets", reason: live.objects.pinnedImageSets.error.message });
  if (live.objects.nodes.status !== "ok")
    unavailable.push({
      part: "nodes",
      reason: live.objects.nodes.status === "error" ? live.objects.nodes.error.message : live.objects.nodes.reason,
    });
  const snapshotPools = new Map(live.snapshot.pools.map((p) => [p.name, p]));
  const nodeDetails = new Map(
    live.objects.nodes.status === "ok" ? live.objects.nodes.items.map((n) => [n.metadata.name, prefetchDetails(n)] as const) : [],
  );
  const checks = precheckBundle({
    manifest,
    digest,
    pools: poolsOf(live).map((p) => ({
      name: p.name,
      machineConfigSelector: p.machineConfigSelector,
      degraded: snapshotPools.get(p.name)?.degraded ?? false,
      updating: snapshotPools.get(p.name)?.updating ?? false,
      degradedMessage: snapshotPools.get(p.name)?.degradedMessage ?? null,
    })),
    nodes: live.snapshot.nodes.map((n) => ({ ...n, pool: pools.get(n.name) ?? null, ...nodeDetails.get(n.name) })),
    alwaysPullPods: pods.status === "ok" ? pods.items.flatMap((p) => alwaysPullPod(p as PodLike) ?? []) : [],
    pinnedImageSets:
      live.objects.pinnedImageSets.status === "ok"
        ? live.objects.pinnedImageSets.items.map((s) => ({
            name: s.metadata.name,
            labels: s.metadata.labels ?? {},
            images: s.spec.pinnedImages.map((i) => i.name),
          }))
        : [],
    unavailable,
    internalReleaseImage: live.snapshot.internalReleaseImage,
  });
  return {
    cluster,
    bundle: {
      digest: `sha256:${digest}`,
      release: manifest.release.version,
      images: manifest.images.length,
      size: formatBytes(totalBytes(manifest)),
    },
    checks,
    canApply: !checks.some((c) => c.status === "fail"),
    needsConfirmation: checks.some((c) => c.status === "warn"),
  };
}

/** Prechecks read a cluster live for a technician about to apply: one over it (outside what they read: missing). */
export async function precheck(digestText: string, clusterName: string, actor: Actor | null = null): Promise<PrecheckResult> {
  if (actor) await requireOverCluster(actor, ["technician"], clusterName, noSuchCluster(clusterName).message);
  const bundle = await bundleOrThrow(digestText);
  const cluster = (await findClusterSummary(clusterName))?.name;
  if (!cluster) throw noSuchCluster(clusterName);
  return withClusterClient(cluster, async (client) => precheckOn(await readLive(client, cluster), cluster, bundle.digest, bundle.manifest));
}
