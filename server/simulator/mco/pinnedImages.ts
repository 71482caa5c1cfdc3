import { labelSelectorMatches } from "../labels";

/**
 * The simulated MCO's pinned images, written from openshift/machine-config-operator (release-4.22
 * and main are the same here): the pinned image set controller puts each PinnedImageSet in the
 * pools whose machineConfigSelector matches it (pkg/controller/pinnedimageset/pinned_image_set.go
 * `getPoolsForPinnedImageSet`), and on each node the daemon's PinnedImageSetManager
 * (pkg/daemon/pinned_image_set.go) checks and prefetches the sets of the node's pools, one sync at a
 * time, under a timeout, requeuing on error. Simulated time: a sync's pulls take `pullSeconds` each
 * on `workers` parallel workers; the clock is the reconciler's.
 */
type Any = Record<string, any>;

/** `MinFreeStorageAfterPrefetch` (pkg/daemon/constants/constants.go): "16Gi". */
export const MIN_FREE_STORAGE_AFTER_PREFETCH = 16 * 1024 ** 3;
/** cmd/machine-config-daemon/start.go `prefetchTimeout`: 5 minutes from 4.22 (OCPBUGS-77140), 2 before. */
export const prefetchTimeoutFor = (minor: number) => (minor >= 22 ? 300 : 120);
const errInsufficientStorage = "storage available is less than minimum required";
const errRequeueAfterTimeout = "requeue: prefetching images incomplete after timeout";
/** `maxRetriesController`: requeues with the rate limiter's backoff before a one-minute pause. */
const MAX_RETRIES_CONTROLLER = 15;

export type Layer = { digest: string; size: number };
/** The site's mirror as `podman manifest inspect` sees it: an image's layers, or null ("manifest unknown"). */
export type Mirror = (image: string) => Layer[] | null;

/** Go's `time.Duration.String()` for whole seconds: 300 → "5m0s", 90 → "1m30s", 45 → "45s", 3600 → "1h0m0s". */
export function goDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

/** `checkNodeReady`: the first Ready ≠ True or DiskPressure ≠ False in the node's condition order. */
export function checkNodeReady(node: Any): string | null {
  for (const c of (node.status?.conditions ?? []) as Any[]) {
    if (c.type === "Ready" && c.status !== "True") return `node ${node.metadata.name} is reporting NotReady=${c.status}`;
    if (c.type === "DiskPressure" && c.status !== "False") return `node ${node.metadata.name} is reporting OutOfDisk=${c.status}`;
  }
  return null;
}

/** resource.Quantity for the forms nodes report ("114345831029", "120Gi", "500M"); null otherwise. */
export function quantityBytes(q: unknown): number | null {
  if (typeof q !== "string") return null;
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|Pi|k|M|G|T|P)?$/.exec(q.trim());
  if (!m) return null;
  const mult: Record<string, number> = {
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    Pi: 2 ** 50,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
  };
  return Math.floor(Number(m[1]) * (m[2] ? mult[m[2]]! : 1));
}

/** The daemon's memory on one node: its imageCache and what CRI-O holds. */
export type DaemonState = {
  /** Images on the node (CRI `ImageStatus`), pulled or there before. */
  onNode: Set<string>;
  /** imageCache entries: image → size (getImageSize's result), and which were pulled. */
  sizes: Map<string, number>;
  /** imageCache digestSeen: layer digests counted; cleared after the sets of a pool (`ClearDigests`). */
  digestSeen: Set<string>;
  /** Image sets completed, by uid: the generation (prefetchImageSets caches them). */
  completed: Map<string, number>;
  /** The sync under way: when it started, its deadline, and when each image it pulls is in. */
  attempt: { started: number; deadline: number; pulls: { image: string; at: number }[] } | null;
  /** When the work queue runs the next sync (ms); null when nothing is queued. */
  nextSync: number | null;
  requeues: number;
  /** The inputs the last sync saw; a change enqueues a sync as the informers' handlers do. */
  seen: string;
  /** The status to write: the sets' entries and the two conditions. */
  status: { entries: Any[]; progressing: boolean; progressingMessage: string; degraded: boolean } | null;
};

export const newDaemonState = (images: Iterable<string> = []): DaemonState => ({
  onNode: new Set(images),
  sizes: new Map(),
  digestSeen: new Set(),
  completed: new Map(),
  attempt: null,
  nextSync: null,
  requeues: 0,
  seen: "",
  status: null,
});

export type NodeSync = {
  node: Any;
  /** The node's pools as `helpers.GetPoolsForNode` gives them, each with its sets in spec order. */
  pools: { name: string; sets: Any[] }[];
  mirror: Mirror;
  prefetchTimeoutSeconds: number;
  pullSeconds: number;
  now: number;
};

/** `getWorkerCount`: five prefetch workers, one on a control-plane node (label node-role.kubernetes.io/master). */
export const workerCount = (node: Any) => ("node-role.kubernetes.io/master" in (node.metadata?.labels ?? {}) ? 1 : 5);

/** The workqueue's `DefaultTypedControllerRateLimiter` per-item backoff: 5ms·2ⁿ (≤ 1000s); after 15, `AddAfter` one minute. */
function requeueDelay(state: DaemonState): number {
  if (state.requeues >= MAX_RETRIES_CONTROLLER) {
    state.requeues = 0;
    return 60_000;
  }
  return Math.min(5 * 2 ** state.requeues++, 1_000_000);
}

/** `getImageSize`: the layers' sizes not counted before in this pool (`digestSeen`). */
function imageSize(state: DaemonState, image: string, mirror: Mirror): number | "not found" {
  const layers = mirror(image);
  if (!layers) return "not found";
  let total = 0;
  for (const l of layers) {
    if (state.digestSeen.has(l.digest)) continue;
    total += l.size;
    state.digestSeen.add(l.digest);
  }
  return total;
}

/** `checkNodeAllocatableStorage` then `checkImagePayloadStorage` for one set; the error text or null. */
export function checkNodeAllocatableStorage(
  state: DaemonState,
  node: Any,
  set: Any,
  mirror: Mirror,
  minFree = MIN_FREE_STORAGE_AFTER_PREFETCH,
): string | null {
  const ready = checkNodeReady(node);
  if (ready) return ready;
  const capacity = quantityBytes(node.status?.allocatable?.["ephemeral-storage"]);
  if (capacity === null) return `node "${node.metadata.name}" has no ephemeral storage capacity`;
  if (capacity < minFree) return `${errInsufficientStorage} capacity: ${capacity}, required: ${minFree}`;
  let required = 0;
  for (const ref of (set.spec?.pinnedImages ?? []) as Any[]) {
    const image = String(ref.name).trim();
    if (state.onNode.has(image)) continue;
    let size = state.sizes.get(image);
    if (size === undefined) {
      const found = imageSize(state, image, mirror);
      // getImageSize's "manifest unknown" → errNotFound.
      if (found === "not found") return "not found";
      size = found;
      state.sizes.set(image, size);
    }
    required += 2 * size; // "account for decompression"
  }
  if (required >= capacity - minFree) return errInsufficientStorage;
  return null;
}

const setKey = (set: Any) => `${set.metadata.uid ?? set.metadata.name}`;

/** `createApplyConfigForImageSet`: a set's entry for MachineConfigNode status.pinnedImageSets. */
function entryFor(state: DaemonState, set: Any, completed: boolean, error: string | null): Any {
  const generation = set.metadata.generation ?? 1;
  const entry: Any = { name: set.metadata.name, desiredGeneration: generation };
  if (state.completed.get(setKey(set)) === generation) entry.currentGeneration = generation;
  else if (error) {
    entry.lastFailedGeneration = generation;
    entry.lastFailedGenerationError = error;
  } else if (completed) entry.currentGeneration = generation;
  return entry;
}

const setsOf = (input: NodeSync) => input.pools.flatMap((p) => p.sets);

/** `updateStatusError`: the sets carry the error, PinnedImageSetsDegraded is True; Progressing stays as the sync left it. */
function statusError(state: DaemonState, input: NodeSync, error: string): void {
  state.status = {
    entries: setsOf(input).map((s) => entryFor(state, s, false, error)),
    progressing: true,
    progressingMessage: `node is prefetching images: ${input.node.metadata.name}`,
    degraded: true,
  };
}

/** `sync`'s start: `updateStatusProgressing` (the sets' errors are dropped, Degraded is kept), then the checks per pool. */
function startSync(state: DaemonState, input: NodeSync, at: number): void {
  state.status = {
    entries: setsOf(input).map((s) => entryFor(state, s, false, null)),
    progressing: true,
    progressingMessage: `node is prefetching images: ${input.node.metadata.name}`,
    degraded: state.status?.degraded ?? false,
  };
  const pulls: string[] = [];
  for (const pool of input.pools) {
    // syncMachineConfigPool: every set of the pool is checked before any is pulled; digests are cleared after.
    for (const set of pool.sets) {
      const error = checkNodeAllocatableStorage(state, input.node, set, input.mirror);
      if (error) {
        statusError(state, input, error);
        state.nextSync = at + requeueDelay(state);
        return;
      }
    }
    state.digestSeen.clear();
    for (const set of pool.sets) {
      if (state.completed.get(setKey(set)) === (set.metadata.generation ?? 1)) continue;
      for (const ref of (set.spec?.pinnedImages ?? []) as Any[]) {
        const image = String(ref.name).trim();
        if (!state.onNode.has(image) && !pulls.includes(image)) pulls.push(image);
      }
    }
  }
  const workers = workerCount(input.node);
  const pullMs = input.pullSeconds * 1000;
  state.attempt = {
    started: at,
    deadline: at + input.prefetchTimeoutSeconds * 1000,
    pulls: pulls.map((image, i) => ({ image, at: at + (Math.floor(i / workers) + 1) * pullMs })),
  };
}

/** `updateStatusProgressingComplete`: every set current, Progressing False, Degraded reset. */
function complete(state: DaemonState, input: NodeSync): void {
  for (const set of setsOf(input)) state.completed.set(setKey(set), set.metadata.generation ?? 1);
  state.status = {
    entries: setsOf(input).map((s) => entryFor(state, s, true, null)),
    progressing: false,
    progressingMessage: "All pinned image sets complete",
    degraded: false,
  };
  state.attempt = null;
  state.requeues = 0; // handleErr: Forget on success
}

/**
 * Runs the node's daemon up to `now`: starts queued syncs, lands the pulls that finished, completes
 * a sync whose images are all in, or — past the deadline — records `errRequeueAfterTimeout` with the
 * timeout as Go prints it and requeues, keeping every image pulled so far. Returns true while work
 * is pending. A change of the pools' sets (or of a set) cancels the sync under way and enqueues one
 * (`updatePinnedImageSet` → `cancelWorkload`; the pool handlers).
 */
export function syncNode(state: DaemonState, input: NodeSync): boolean {
  const seen = JSON.stringify(
    input.pools.map((p) => [p.name, p.sets.map((s) => [s.metadata.name, s.metadata.generation, s.spec?.pinnedImages])]),
  );
  if (seen !== state.seen) {
    state.seen = seen;
    state.attempt = null;
    state.nextSync = input.pools.some((p) => p.sets.length) || state.status ? input.now : null;
  }
  for (let steps = 0; steps < 64; steps++) {
    const a = state.attempt;
    if (a) {
      const until = Math.min(input.now, a.deadline);
      for (const p of a.pulls) if (p.at <= until) state.onNode.add(p.image);
      if (a.pulls.every((p) => p.at <= until)) {
        complete(state, input);
        continue;
      }
      if (input.now < a.deadline) return true;
      // The context's deadline: sync wraps context.DeadlineExceeded as errRequeueAfterTimeout.
      state.attempt = null;
      statusError(state, input, `${errRequeueAfterTimeout}: ${goDuration(input.prefetchTimeoutSeconds)}`);
      state.nextSync = a.deadline + requeueDelay(state);
      continue;
    }
    if (state.nextSync === null || state.nextSync > input.now) break;
    const at = state.nextSync;
    state.nextSync = null;
    if (!setsOf(input).length) {
      complete(state, input);
      continue;
    }
    startSync(state, input, at);
  }
  // A long stretch of failing syncs is summed up: the state after the last one stands, the next is due now.
  if (state.nextSync !== null && state.nextSync < input.now - 60_000) state.nextSync = input.now;
  return state.attempt !== null || state.nextSync !== null;
}

/** `helpers.GetPoolsForNode`: master wins over a custom pool, a custom pool comes with worker; two custom pools is an error (none). */
export function poolsForNode(node: Any, pools: Any[]): Any[] {
  const labels = node.metadata?.labels ?? {};
  const matching = pools.filter((p) => labelSelectorMatches(p.spec?.nodeSelector, labels));
  const master = matching.find((p) => p.metadata.name === "master");
  const worker = matching.find((p) => p.metadata.name === "worker");
  const custom = matching.filter((p) => p !== master && p !== worker);
  if (custom.length > 1) return [];
  if (custom.length === 1) return [master ?? custom[0]!, ...(worker ? [worker] : [])];
  if (master) return [master];
  return worker ? [worker] : [];
}

/**
 * pinned image set controller `getPoolsForPinnedImageSet` → each pool's spec.pinnedImageSets, by name.
 * A pool whose selector is nil or empty (`selector.Empty()`) gets no set: "it should match nothing, not everything".
 */
export function poolPinnedImageSets(pool: Any, sets: Any[]): { name: string }[] {
  const selector = pool.spec?.machineConfigSelector;
  const empty = !selector || (!Object.keys(selector.matchLabels ?? {}).length && !(selector.matchExpressions ?? []).length);
  if (empty) return [];
  return sets
    .filter((s) => labelSelectorMatches(selector, s.metadata.labels))
    .sort((a, b) => String(a.metadata.name).localeCompare(String(b.metadata.name)))
    .map((s) => ({ name: s.metadata.name }));
}
