/**
 * The MCO's checks before it prefetches a PinnedImageSet onto a node, as the machine-config-daemon
 * makes them (openshift/machine-config-operator pkg/daemon/pinned_image_set.go, release-4.22 and
 * main alike; docs/openshift.md §21.5): `checkNodeReady`, then `checkNodeAllocatableStorage`, then
 * `checkImagePayloadStorage`, once per PinnedImageSet of the node's pools. Pure.
 */

const GiB = 1024 ** 3;
/** The MCO keeps this much allocatable ephemeral storage free after a prefetch (`MinFreeStorageAfterPrefetch`, docs/openshift.md §21.3). */
export const MIN_FREE_AFTER_PREFETCH = 16 * GiB;

export type PrefetchLayer = { digest: string; sizeBytes: number };
/** An image as the disk check sees it: its compressed size and, when known, its layers. */
export type PrefetchImage = { name: string; sizeBytes: number; layers?: PrefetchLayer[] };

/** A node condition's status as the API serves it ("True", "False", "Unknown"); null when absent. */
export type ConditionStatus = string | null;

export type PrefetchNode = {
  name: string;
  /** `status.allocatable["ephemeral-storage"]` in bytes; null when the node does not report it. */
  allocatable: number | null;
  /** Node conditions in the order the node lists them (only Ready and DiskPressure matter). */
  conditions: { type: string; status: string }[];
  /** Images the node already holds (`status.images[].names`); the MCO pulls and counts none of them. */
  images?: readonly string[];
};

export type PrefetchDiskVerdict =
  | { ok: true; required: number; room: number }
  /** The MCO's error for this node, in its own words, and which rule gave it. */
  | {
      ok: false;
      rule: "not-ready" | "out-of-disk" | "no-ephemeral-storage" | "below-minimum" | "payload";
      message: string;
      required: number;
      room: number | null;
    };

/** `errInsufficientStorage`'s text. */
export const INSUFFICIENT_STORAGE = "storage available is less than minimum required";

/**
 * `checkNodeReady`: the first of Ready ≠ True or DiskPressure ≠ False, in the node's own condition
 * order, as the MCO words it (`node %s is reporting NotReady=%v` / `… OutOfDisk=%v`). A node without
 * those conditions passes. DiskPressure=Unknown blocks as True does.
 */
export function nodeReadyProblem(
  node: Pick<PrefetchNode, "name" | "conditions">,
): { rule: "not-ready" | "out-of-disk"; message: string } | null {
  for (const c of node.conditions) {
    if (c.type === "Ready" && c.status !== "True")
      return { rule: "not-ready", message: `node ${node.name} is reporting NotReady=${c.status}` };
    if (c.type === "DiskPressure" && c.status !== "False")
      return { rule: "out-of-disk", message: `node ${node.name} is reporting OutOfDisk=${c.status}` };
  }
  return null;
}

/**
 * `checkImagePayloadStorage` with `getImageSize`: the bytes one set needs on a node — for each image
 * not already on the node, twice (for decompression) the size of its layers not counted before.
 * `seen` carries the layer digests counted so far across the sets of one sync (the MCO clears them
 * after the sets of a pool, `ClearDigests`), and is extended. An image without layers counts whole.
 */
export function payloadBytes(images: readonly PrefetchImage[], onNode: ReadonlySet<string>, seen: Set<string> = new Set()): number {
  let required = 0;
  for (const image of images) {
    const name = image.name.trim();
    if (onNode.has(name)) continue;
    let size = 0;
    if (image.layers?.length)
      for (const layer of image.layers) {
        if (seen.has(layer.digest)) continue;
        seen.add(layer.digest);
        size += layer.sizeBytes;
      }
    else size = image.sizeBytes;
    required += 2 * size;
  }
  return required;
}

/** The bytes of a bundle's images with each layer counted once (half of what a node without any of them needs). */
export const distinctBytes = (images: readonly PrefetchImage[]) => payloadBytes(images, new Set()) / 2;

/**
 * `checkNodeAllocatableStorage` for each set in order (`syncMachineConfigPool`): the node must be ready
 * (`checkNodeReady`), report allocatable ephemeral storage of at least `MinFreeStorageAfterPrefetch`,
 * and each set's payload must be below allocatable minus that minimum. Allocatable is what the
 * kubelet reserves for pods, not free space: deleting files does not raise it.
 */
export function checkPrefetchDisk(
  node: PrefetchNode,
  sets: readonly (readonly PrefetchImage[])[],
  minFree: number = MIN_FREE_AFTER_PREFETCH,
): PrefetchDiskVerdict {
  const onNode = new Set((node.images ?? []).map((i) => i.trim()));
  const seen = new Set<string>();
  const requirements = sets.map((images) => payloadBytes(images, onNode, seen));
  const required = Math.max(0, ...requirements);
  const notReady = nodeReadyProblem(node);
  if (notReady) return { ok: false, ...notReady, required, room: null };
  if (node.allocatable === null)
    return {
      ok: false,
      rule: "no-ephemeral-storage",
      message: `node "${node.name}" has no ephemeral storage capacity`,
      required,
      room: null,
    };
  const room = node.allocatable - minFree;
  if (node.allocatable < minFree)
    return {
      ok: false,
      rule: "below-minimum",
      message: `${INSUFFICIENT_STORAGE} capacity: ${node.allocatable}, required: ${minFree}`,
      required,
      room,
    };
  if (requirements.some((r) => r >= room)) return { ok: false, rule: "payload", message: INSUFFICIENT_STORAGE, required, room };
  return { ok: true, required, room };
}
