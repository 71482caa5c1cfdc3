import { formatBytes, MIN_FREE_AFTER_PREFETCH } from "./bundleManifest";
import type { NodeFacts, PinnedImageProgress } from "./snapshot";

/** Each node's pre-load of a bundle, from its MachineConfigNode, in plain words. Pure. */
export type NodePinState = "waiting" | "pulling" | "done" | "failed";
export type NodeProgress = {
  node: string;
  pool: string;
  state: NodePinState;
  /** Plain words: "pulling images", "failed: not enough disk". */
  label: string;
  /** The node's own error text, when it failed. */
  error: string | null;
  /** What the technician can do; null when nothing is needed. */
  remedy: string | null;
};

type Failure = { label: string; remedy: string };

/** Turns the MCO's error text for a failed prefetch into words and a next step. */
export function explainPinFailure(error: string, imageBytes: number, allocatable: number | null): Failure {
  const e = error.toLowerCase();
  const need = formatBytes(2 * imageBytes + MIN_FREE_AFTER_PREFETCH);
  if (e.includes("storage available is less than minimum required"))
    return {
      label: "failed: not enough disk",
      remedy:
        `The node needs ${need} of allocatable disk for these images (twice their size plus 16 GiB)` +
        `${allocatable !== null ? ` and reports ${formatBytes(allocatable)}` : ""}. Free disk space on the node (remove unused images with crictl rmi --prune, clear old logs); the MCO retries by itself.`,
    };
  if (e.includes("no space left on device"))
    return {
      label: "failed: disk filled up while pulling",
      remedy: "The disk ran full during the pull. Free disk space on the node; the MCO retries by itself.",
    };
  if (/manifest unknown|not found|name unknown/.test(e))
    return {
      label: "failed: image not in the mirror",
      remedy:
        "The mirror registry does not have one of the bundle's images. Mirror the bundle's images again (oc-mirror) and check the cluster's ImageDigestMirrorSet.",
    };
  if (/unauthorized|authentication required|denied/.test(e))
    return {
      label: "failed: the registry refused the node",
      remedy: "The mirror registry refused the pull credentials. Check the cluster's pull secret for the mirror.",
    };
  if (/timeout|deadline|i\/o timeout|connection refused|no such host/.test(e))
    return {
      label: "failed: registry not reachable",
      remedy: "The node could not reach the mirror registry in time. Check the network path from the node to the mirror; the MCO retries.",
    };
  if (/not ready|diskpressure|disk pressure/.test(e))
    return {
      label: "failed: node not ready",
      remedy: "The node is not ready or under disk pressure. Fix the node; the MCO retries once it is ready.",
    };
  return {
    label: "failed",
    remedy: "Read the node's error below; if it is not clear, ask an admin to look at the machine-config-daemon log on that node.",
  };
}

/**
 * A node's state for one PinnedImageSet generation, from its MachineConfigNode (reference §5.2):
 * done when the current generation reached the set's; failed while the node reports
 * PinnedImageSetsDegraded for that generation; pulling while it reports progress; else waiting.
 */
export function nodePinProgress(
  node: Pick<NodeFacts, "name" | "pool" | "pinned" | "pinnedDegraded" | "pinnedProgressing" | "pinnedMessage" | "ready" | "ephemeralBytes">,
  set: { name: string; generation: number | null },
  imageBytes: number,
): NodeProgress {
  const entry: PinnedImageProgress | undefined = node.pinned.find((p) => p.set === set.name);
  const generation = set.generation ?? entry?.desiredGeneration ?? null;
  const base = { node: node.name, pool: node.pool ?? "", error: null, remedy: null };
  if (entry && generation !== null && (entry.currentGeneration ?? 0) >= generation)
    return { ...base, state: "done", label: "done: images pulled and pinned" };
  if (entry && node.pinnedDegraded && entry.lastFailedGeneration !== null && entry.lastFailedGeneration >= (generation ?? 0)) {
    const why = explainPinFailure(entry.error ?? node.pinnedMessage ?? "", imageBytes, node.ephemeralBytes);
    return { ...base, state: "failed", label: why.label, error: entry.error ?? node.pinnedMessage ?? null, remedy: why.remedy };
  }
  if (node.ready === false)
    return { ...base, state: "waiting", label: "waiting: node not ready", remedy: "The node pulls the images once it is Ready again." };
  if (entry && node.pinnedProgressing) return { ...base, state: "pulling", label: "pulling images" };
  return { ...base, state: "waiting", label: entry ? "waiting to pull" : "waiting for the MCO to pick up the set" };
}

export type ProgressSummary = { total: number; done: number; pulling: number; waiting: number; failed: number; allDone: boolean };

export function summarizeProgress(nodes: NodeProgress[]): ProgressSummary {
  const count = (s: NodePinState) => nodes.filter((n) => n.state === s).length;
  return {
    total: nodes.length,
    done: count("done"),
    pulling: count("pulling"),
    waiting: count("waiting"),
    failed: count("failed"),
    allDone: nodes.length > 0 && count("done") === nodes.length,
  };
}
