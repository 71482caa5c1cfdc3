import { formatBytes } from "./bundleManifest";
import { MIN_FREE_AFTER_PREFETCH } from "./prefetchDisk";
import { parseOcpVersion } from "./versions";
import type { NodeFacts, PinnedImageProgress } from "./snapshot";

/** Each node's pre-load of a bundle, from its MachineConfigNode, in plain words. Pure. */
export type NodePinState = "waiting" | "pulling" | "done" | "failed";
export type NodeProgress = {
  node: string;
  pool: string;
  state: NodePinState;
  /** Pulling in another attempt after the MCO's prefetch timeout (or another error) ended the last one. */
  retrying?: boolean;
  /** Plain words: "pulling images", "failed: not enough disk". */
  label: string;
  /** The node's own error text, when it failed. */
  error: string | null;
  /** What the technician can do; null when nothing is needed. */
  remedy: string | null;
};

type Failure = { label: string; remedy: string };

/**
 * `errRequeueAfterTimeout` (pkg/daemon/pinned_image_set.go): what `PinnedImageSetManager.sync` writes
 * as a set's lastFailedGenerationError when the prefetch outlives its context (`%w: %v`, the timeout
 * as Go prints a duration: "5m0s" from 4.22, "2m0s" before). The sync returns it, the work queue
 * runs the sync again at once, and the images already pulled are kept: not a failure.
 */
export const PREFETCH_REQUEUE = "requeue: prefetching images incomplete after timeout";

export const isPrefetchRequeue = (error: string | null | undefined) => !!error && error.trim().startsWith(PREFETCH_REQUEUE);

/** "5m0s" → "5 minutes", from the MCO's requeue message; null when it names no duration. */
export function requeueTimeout(error: string): string | null {
  const m = /after timeout: (?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?\s*$/.exec(error.trim());
  if (!m || (!m[1] && !m[2] && !m[3])) return null;
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return seconds % 60 === 0 ? `${seconds / 60} minute${seconds === 60 ? "" : "s"}` : `${seconds} seconds`;
}

/** Why a node still pulls after the MCO's attempt ran out of time, and that nothing needs doing. */
/** The daemon's prefetch timeout of a release (cmd/machine-config-daemon/start.go): 5 minutes from 4.22, 2 before. */
export function prefetchTimeoutOf(release: string | null | undefined): string | null {
  const v = parseOcpVersion(release ?? undefined);
  if (!v) return null;
  return v.major > 4 || v.minor >= 22 ? "5 minutes" : "2 minutes";
}

export function explainRequeue(error: string | null, release?: string | null): string {
  const timeout = (error && requeueTimeout(error)) ?? prefetchTimeoutOf(release) ?? "a few minutes (5 from OpenShift 4.22, 2 before)";
  return (
    `Nothing to do. The MCO gives each prefetch attempt ${timeout}; a release-sized bundle takes longer, so when the time runs out ` +
    `it notes "${PREFETCH_REQUEUE}" and starts the next attempt at once, keeping the images already pulled. ` +
    "The node reports PinnedImageSetsDegraded meanwhile; that clears when every image is in."
  );
}

/** Turns the MCO's error text for a failed prefetch into words and a next step. */
export function explainPinFailure(error: string, imageBytes: number, allocatable: number | null): Failure {
  const e = error.toLowerCase();
  const need = formatBytes(2 * imageBytes + MIN_FREE_AFTER_PREFETCH);
  const notReady = /node \S+ is reporting (notready|outofdisk)=(\w+)/i.exec(error);
  if (notReady?.[1]!.toLowerCase() === "outofdisk")
    return {
      label: "failed: node under disk pressure",
      remedy:
        `The node reports DiskPressure=${notReady[2]} and the MCO pulls nothing onto it until that is False. ` +
        "Free disk space on the node (remove unused images with crictl rmi --prune, clear old logs) or find out why the kubelet does not report; the MCO retries by itself.",
    };
  if (notReady)
    return {
      label: "failed: node not ready",
      remedy: `The node reports Ready=${notReady[2]}. Find out why it is not ready; the MCO retries and pulls once it is.`,
    };
  if (e.includes("storage available is less than minimum required"))
    return {
      label: "failed: not enough disk",
      remedy:
        `The node needs up to ${need} of allocatable ephemeral storage for these images (twice their size plus 16 GiB; images already on the node and layers shared between images count once)` +
        `${allocatable !== null ? ` and reports ${formatBytes(allocatable)}` : ""}. Allocatable storage is the part of the disk the kubelet gives pods, so deleting files does not raise it: ` +
        "grow the node's disk or use a smaller bundle. The MCO retries by itself.",
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
  if (/timeout|deadline|i\/o timeout|connection refused|no such host|timed out waiting/.test(e))
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
 * A node's state for one PinnedImageSet generation, from its MachineConfigNode (docs/openshift.md
 * §21.2, §21.5): done when the current generation reached the set's; failed while the node reports
 * PinnedImageSetsDegraded with an error for that generation — except the MCO's own timeout
 * (`errRequeueAfterTimeout`), which is pulling; pulling while it reports progress, also while it
 * still reports the degraded condition of an earlier attempt (`sync` resets the set's error on every
 * attempt but PinnedImageSetsDegraded only on success); else waiting.
 */
export function nodePinProgress(
  node: Pick<NodeFacts, "name" | "pool" | "pinned" | "pinnedDegraded" | "pinnedProgressing" | "pinnedMessage" | "ready" | "ephemeralBytes">,
  set: { name: string; generation: number | null },
  imageBytes: number,
  /** The cluster's current release: its MCO's prefetch timeout, for the words. */
  release?: string | null,
): NodeProgress {
  const entry: PinnedImageProgress | undefined = node.pinned.find((p) => p.set === set.name);
  const generation = set.generation ?? entry?.desiredGeneration ?? null;
  const base = { node: node.name, pool: node.pool ?? "", error: null, remedy: null };
  if (entry && generation !== null && (entry.currentGeneration ?? 0) >= generation)
    return { ...base, state: "done", label: "done: images pulled and pinned" };
  if (entry && node.pinnedDegraded && entry.lastFailedGeneration !== null && entry.lastFailedGeneration >= (generation ?? 0)) {
    if (isPrefetchRequeue(entry.error))
      return {
        ...base,
        state: "pulling",
        retrying: true,
        label: "still pulling: the MCO retries",
        error: entry.error,
        remedy: explainRequeue(entry.error, release),
      };
    // checkNodeReady's "node … is reporting NotReady=…": the MCO retries and pulls once the node is back.
    if (/ is reporting NotReady=/.test(entry.error ?? "") && node.ready !== true)
      return {
        ...base,
        state: "waiting",
        label: "waiting: node not ready",
        error: entry.error,
        remedy: "The node pulls the images once it is Ready again; the MCO keeps retrying meanwhile.",
      };
    const why = explainPinFailure(entry.error ?? node.pinnedMessage ?? "", imageBytes, node.ephemeralBytes);
    return { ...base, state: "failed", label: why.label, error: entry.error ?? node.pinnedMessage ?? null, remedy: why.remedy };
  }
  if (node.ready === false)
    return { ...base, state: "waiting", label: "waiting: node not ready", remedy: "The node pulls the images once it is Ready again." };
  if (entry && node.pinnedProgressing && node.pinnedDegraded)
    return { ...base, state: "pulling", retrying: true, label: "still pulling: the MCO retries", remedy: explainRequeue(null, release) };
  if (entry && node.pinnedProgressing) return { ...base, state: "pulling", label: "pulling images" };
  return { ...base, state: "waiting", label: entry ? "waiting to pull" : "waiting for the MCO to pick up the set" };
}

export type ProgressSummary = {
  total: number;
  done: number;
  pulling: number;
  waiting: number;
  failed: number;
  /** Of the pulling nodes, those in another attempt after the MCO's prefetch timeout. */
  retrying: number;
  allDone: boolean;
};

export function summarizeProgress(nodes: NodeProgress[]): ProgressSummary {
  const count = (s: NodePinState) => nodes.filter((n) => n.state === s).length;
  return {
    total: nodes.length,
    done: count("done"),
    pulling: count("pulling"),
    waiting: count("waiting"),
    failed: count("failed"),
    retrying: nodes.filter((n) => n.state === "pulling" && n.retrying).length,
    allDone: nodes.length > 0 && count("done") === nodes.length,
  };
}
