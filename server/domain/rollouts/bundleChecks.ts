/**
 * A bundle rollout's checks that need no write and no live read: the bundle prechecks a stored
 * snapshot can answer, run when the plan is made; and a failed pre-load told in the MCO's words.
 * Pure.
 */
import type { BundleManifest } from "../bundleManifest";
import type { NodeProgress } from "../bundleProgress";
import { precheckBundle } from "../bundlePrechecks";
import { ClusterSnapshotSchema, type ClusterSnapshot } from "../snapshot";

/**
 * The prechecks a stored snapshot answers as the live read would: a degraded pool, a node's
 * allocatable storage or DiskPressure, a registry-less cluster that does not serve the release.
 * Pods that always pull, the pools' machineConfigSelector and the images already on each node are
 * not stored; the step's own live prechecks read them when it starts. Without the images on the
 * node every image counts as missing, the stricter way.
 */
const ANSWERED_FROM_STORE = new Set(["pool-degraded", "disk-space", "registry-less-release"]);

/** The parts of a stored snapshot these checks read. */
export const STORED_PRECHECK_PARTS = ["pools", "nodes", "internalReleaseImage"] as const;

/** Those parts of a stored snapshot, decoded by the snapshot's own schema. */
export const StoredPrecheckPartsSchema = ClusterSnapshotSchema.pick({ pools: true, nodes: true, internalReleaseImage: true });

/** The first failing precheck a stored snapshot shows, in words with what to do; null when none. */
export function storedPrecheckFailure(
  snapshot: Pick<ClusterSnapshot, (typeof STORED_PRECHECK_PARTS)[number]>,
  manifest: BundleManifest,
  digest: string,
): string | null {
  const checks = precheckBundle({
    manifest,
    digest,
    pools: (snapshot.pools ?? []).map((p) => ({
      name: p.name,
      degraded: p.degraded,
      updating: p.updating,
      degradedMessage: p.degradedMessage,
    })),
    nodes: (snapshot.nodes ?? []).map((n) => ({
      name: n.name,
      pool: n.pool,
      ephemeralBytes: n.ephemeralBytes,
      ready: n.ready,
      diskPressure: n.diskPressure ?? null,
      pinned: n.pinned,
    })),
    alwaysPullPods: [],
    pinnedImageSets: [],
    unavailable: [],
    internalReleaseImage: snapshot.internalReleaseImage ?? null,
  });
  const failing = checks.find((c) => c.status === "fail" && ANSWERED_FROM_STORE.has(c.id));
  if (!failing) return null;
  return `bundle precheck: ${failing.title}. ${failing.detail}${failing.remedy ? ` ${failing.remedy}` : ""}`;
}

/**
 * Why a cluster's pre-load failed, from its nodes' MachineConfigNode status: the first failed
 * node, the MCO's own error for the PinnedImageSet (status.pinnedImageSets[].lastFailedGenerationError,
 * with PinnedImageSetsDegraded True), what it means and what to do; null when no node failed.
 */
export function preloadFailure(nodes: NodeProgress[]): string | null {
  const failed = nodes.filter((n) => n.state === "failed");
  const first = failed[0];
  if (!first) return null;
  const more = failed.length > 1 ? ` (${failed.length - 1} more node${failed.length === 2 ? "" : "s"} failed too)` : "";
  const words = first.label.replace(/^failed: /, "");
  const mco = first.error ? `the MCO reports "${first.error}" (MachineConfigNode ${first.node}, PinnedImageSetsDegraded=True)` : "";
  return `pre-load failed on node ${first.node} of pool ${first.pool}: ${words}${mco ? `; ${mco}` : ""}${more}. ${first.remedy ?? ""}`.trim();
}
