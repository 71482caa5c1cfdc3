import { createHash } from "node:crypto";
import { formatBytes, pinnedImageSetName, prefetchImages, RELEASE_LABEL, totalBytes, type BundleManifest } from "./bundleManifest";
import { labelsForPool, selectorIsEmpty } from "./pinnedSetPools";
import type { Precheck, PrecheckPool } from "./precheck";
import { alwaysPullIdentity, type PrecheckPod } from "./alwaysPullPods";
import { isPrefetchRequeue } from "./bundleProgress";
import { checkPrefetchDisk, INSUFFICIENT_STORAGE, MIN_FREE_AFTER_PREFETCH, nodeReadyProblem, type PrefetchImage } from "./prefetchDisk";
import { registryLessPrecheck } from "./registryLess";
import type { InternalReleaseImageFacts, NodeFacts } from "./snapshot";

export { labelsForPool, poolsSelecting, ROLE_LABEL } from "./pinnedSetPools";
export { alwaysPullIdentity, alwaysPullPod, podOwner, type PodLike, type PrecheckPod } from "./alwaysPullPods";
export type { Precheck, PrecheckPool, PrecheckStatus } from "./precheck";

/**
 * What is checked on a cluster before a bundle's images are pinned there: pools, disk, pods that
 * always pull, other pinned sets. Pure: the cluster's objects come in as arguments.
 */
export type PrecheckNode = Pick<NodeFacts, "name" | "pool" | "ephemeralBytes" | "ready" | "diskPressure"> & {
  /** The node's MachineConfigNode pinned-set entries (other sets' failures hold this bundle back). */
  pinned?: NodeFacts["pinned"];
  /** The node's Ready and DiskPressure conditions as served, in its order; derived from ready/diskPressure when absent. */
  conditions?: { type: string; status: string }[];
  /** Images already on the node (`status.images[].names`): the MCO neither pulls nor counts them. */
  images?: string[];
};
export type PrecheckSet = { name: string; labels: Record<string, string>; images: string[] };

export type PrecheckInput = {
  manifest: BundleManifest;
  digest: string;
  pools: PrecheckPool[];
  nodes: PrecheckNode[];
  /** Pods with a container whose imagePullPolicy is Always. */
  alwaysPullPods: PrecheckPod[];
  pinnedImageSets: PrecheckSet[];
  /** Reads that could not be made; each makes a check unknown (a warning). */
  unavailable: { part: "pods" | "pinned image sets" | "nodes"; reason: string }[];
  /** A registry-less cluster's InternalReleaseImage: its nodes pull only the releases it serves. */
  internalReleaseImage?: InternalReleaseImageFacts | null;
};

/**
 * The MCO's disk check for a prefetch by whole sizes (docs/openshift.md §21.5): allocatable ephemeral
 * storage must be at least 16 GiB, and twice the images' size must fit below it minus 16 GiB.
 * The prechecks use checkPrefetchDisk, which also counts each layer once and skips images on the node.
 */
export function diskVerdict(allocatable: number | null, imageBytes: number): { ok: boolean | null; need: number; room: number | null } {
  const need = 2 * imageBytes;
  if (allocatable === null) return { ok: null, need, room: null };
  const room = allocatable - MIN_FREE_AFTER_PREFETCH;
  return { ok: allocatable >= MIN_FREE_AFTER_PREFETCH && need < room, need, room };
}

/**
 * A precheck's key (see Precheck.key): stable while the finding is the same. `keyItems`, when
 * given, names what the finding is about where `items` (what is shown) changes without it.
 */
export function precheckKey(check: Pick<Precheck, "id" | "pool" | "items"> & { keyItems?: string[] }): string {
  const base = `${check.id}/${check.pool ?? "cluster"}`;
  const named = [...new Set(check.keyItems ?? check.items)];
  if (!named.length) return base;
  const items = createHash("sha256").update(named.sort().join("\n")).digest("hex").slice(0, 12);
  return `${base}/${items}`;
}

export function precheckBundle(input: PrecheckInput): Precheck[] {
  return findings(input).map(({ keyItems, ...c }) => ({ ...c, key: precheckKey({ ...c, keyItems }) }));
}

type Finding = Omit<Precheck, "key"> & { keyItems?: string[] };

function findings(input: PrecheckInput): Finding[] {
  const bytes = totalBytes(input.manifest);
  const images = prefetchImages(input.manifest);
  const nodesByPool = new Map<string, PrecheckNode[]>();
  for (const n of input.nodes) nodesByPool.set(n.pool ?? "", [...(nodesByPool.get(n.pool ?? "") ?? []), n]);
  const nodesUnavailable = !!unavailablePart(input, "nodes");
  const registryLess = registryLessPrecheck(input.manifest, input.internalReleaseImage);
  return [
    ...(registryLess ? [registryLess] : []),
    ...input.pools.flatMap((pool) => poolChecks(input, pool, nodesByPool.get(pool.name) ?? [], nodesUnavailable, images, bytes)),
    alwaysPullPodsCheck(input),
    ...pinnedImageSetChecks(input),
  ];
}

const unavailablePart = (input: PrecheckInput, part: PrecheckInput["unavailable"][number]["part"]) =>
  input.unavailable.find((u) => u.part === part);

/** One pool: whether it can take pinned images, its state, its nodes' disk and readiness. */
function poolChecks(
  input: PrecheckInput,
  pool: PrecheckPool,
  nodes: PrecheckNode[],
  nodesUnavailable: boolean,
  images: PrefetchImage[],
  bytes: number,
): Finding[] {
  const checks: Finding[] = [];
  if (!labelsForPool(pool, input.pools))
    checks.push({
      id: "pool-not-selectable",
      pool: pool.name,
      title: `Pool ${pool.name} cannot receive pinned images`,
      status: "fail",
      detail: selectorIsEmpty(pool.machineConfigSelector)
        ? `Pool ${pool.name} has an empty machineConfigSelector, and the MCO gives no PinnedImageSet to such a pool (getPoolsForPinnedImageSet: an empty selector matches nothing).`
        : `The MCO gives a PinnedImageSet to the pools whose machineConfigSelector matches its labels, and no labels Fleetskew can derive from ${pool.name}'s selector match it.`,
      remedy: "Ask an admin to check the pool's machineConfigSelector (oc get mcp " + pool.name + " -o yaml).",
      items: [],
    });
  if (pool.degraded)
    checks.push({
      id: "pool-degraded",
      pool: pool.name,
      title: `Pool ${pool.name} is degraded`,
      status: "fail",
      detail: `The ${pool.name} pool reports Degraded${pool.degradedMessage ? `: ${pool.degradedMessage}` : ""}. Its nodes would not take new pinned images reliably.`,
      remedy: "Ask an admin to fix the degraded pool (oc get mcp shows which node) before applying the bundle.",
      items: [],
    });
  else if (pool.updating)
    checks.push({
      id: "pool-updating",
      pool: pool.name,
      title: `Pool ${pool.name} is updating`,
      status: "warn",
      detail: `The ${pool.name} pool is rolling out a configuration change; nodes reboot one by one and pull the images once they are back.`,
      remedy: "Applying now is safe but slower; wait for the pool to finish if you can.",
      items: [],
    });

  if (nodes.length === 0 && !nodesUnavailable) {
    checks.push({
      id: "disk-space",
      pool: pool.name,
      title: `No nodes in pool ${pool.name}`,
      status: "pass",
      detail: `The ${pool.name} pool has no nodes, so nothing is pulled there.`,
      remedy: null,
      items: [],
    });
    return checks;
  }
  checks.push(diskCheck(pool.name, nodes, images, bytes));
  const held = heldBackCheck(pool.name, nodes, pinnedImageSetName(input.manifest, input.digest, pool.name));
  if (held) checks.push(held);

  const notReady = nodes.filter((n) => conditionsOf(n).some((c) => c.type === "Ready" && c.status !== "True"));
  if (notReady.length)
    checks.push({
      id: "nodes-not-ready",
      pool: pool.name,
      title: `${notReady.length} node${notReady.length === 1 ? " is" : "s are"} not ready in ${pool.name}`,
      status: "warn",
      detail:
        `The MCO pulls pinned images only on Ready nodes: ${notReady.map((n) => n.name).join(", ")} will wait. ` +
        `Meanwhile the node reports the MCO's "${nodeReadyProblem({ name: notReady[0]!.name, conditions: conditionsOf(notReady[0]!).filter((c) => c.type === "Ready") })?.message}" and the MCO retries.`,
      remedy: "Find out why the node is not ready; it pulls the images once it is.",
      items: notReady.map((n) => n.name),
    });
  return checks;
}

/** Pods with imagePullPolicy: Always need a registry again after each node reboots. */
function alwaysPullPodsCheck(input: PrecheckInput): Finding {
  const pods = unavailablePart(input, "pods");
  if (pods)
    return {
      id: "always-pull-pods",
      pool: null,
      title: "Pods that always pull their image: not checked",
      status: "warn",
      detail: `The pods could not be listed (${pods.reason}), so pods that will need a registry after the reboot are not known.`,
      remedy: "Ask an admin for the pods list permission, or check by hand for imagePullPolicy: Always.",
      items: [],
    };
  else if (input.alwaysPullPods.length)
    return {
      id: "always-pull-pods",
      pool: null,
      title: `${input.alwaysPullPods.length} pod${input.alwaysPullPods.length === 1 ? " always pulls its" : "s always pull their"} image`,
      status: "warn",
      detail:
        "These pods use imagePullPolicy: Always, so after each node reboots during the update they pull their image again and need a reachable registry (or mirror): " +
        input.alwaysPullPods
          .slice(0, 20)
          .map((p) => `${p.namespace}/${p.name}${p.node ? ` on ${p.node}` : ""}`)
          .join(", ") +
        (input.alwaysPullPods.length > 20 ? `, and ${input.alwaysPullPods.length - 20} more` : "") +
        ".",
      remedy: "Make sure the mirror registry serves their images, or change them to imagePullPolicy: IfNotPresent before the update.",
      items: input.alwaysPullPods.map((p) => `${p.namespace}/${p.name}`),
      // Pods come and go under the same workload: the warning is the same while the workloads and their images are.
      keyItems: input.alwaysPullPods.map(alwaysPullIdentity),
    };
  else
    return {
      id: "always-pull-pods",
      pool: null,
      title: "No pods always pull their image",
      status: "pass",
      detail: "No pod uses imagePullPolicy: Always, so nothing needs a registry after the nodes reboot.",
      remedy: null,
      items: [],
    };
}

/** Other PinnedImageSets on the cluster, and this bundle's own when it is applied already. */
function pinnedImageSetChecks(input: PrecheckInput): Finding[] {
  const checks: Finding[] = [];
  const sets = unavailablePart(input, "pinned image sets");
  const ours = new Set(input.pools.map((p) => pinnedImageSetName(input.manifest, input.digest, p.name)));
  const others = input.pinnedImageSets.filter((s) => !ours.has(s.name));
  const already = input.pinnedImageSets.filter((s) => ours.has(s.name));
  if (sets)
    checks.push({
      id: "existing-pinned-image-sets",
      pool: null,
      title: "Existing PinnedImageSets: not checked",
      status: "warn",
      detail: `PinnedImageSets could not be listed (${sets.reason}).`,
      remedy: "Ask an admin to check oc get pinnedimagesets before applying.",
      items: [],
    });
  else if (others.length) {
    const pinnedBytes = others.reduce((n, s) => n + s.images.length, 0);
    checks.push({
      id: "existing-pinned-image-sets",
      pool: null,
      title: `${others.length} PinnedImageSet${others.length === 1 ? " is" : "s are"} already on the cluster`,
      status: "warn",
      detail:
        `${others.map((s) => `${s.name}${s.labels[RELEASE_LABEL] ? ` (bundle for ${s.labels[RELEASE_LABEL]})` : ""}`).join(", ")} ` +
        `stay pinned next to this bundle (${pinnedBytes} image${pinnedBytes === 1 ? "" : "s"}), and their images take disk space too.`,
      remedy: "If a set belongs to an upgrade that is done, unpin it first (Bundles → its application → Unpin).",
      items: others.map((s) => s.name),
    });
  } else
    checks.push({
      id: "existing-pinned-image-sets",
      pool: null,
      title: "No other PinnedImageSets",
      status: "pass",
      detail: "No other images are pinned on this cluster.",
      remedy: null,
      items: [],
    });
  if (already.length)
    checks.push({
      id: "already-applied",
      pool: null,
      title: "This bundle is already applied",
      status: "pass",
      detail: `${already.map((s) => s.name).join(", ")} exist already; applying again changes nothing.`,
      remedy: null,
      items: already.map((s) => s.name),
    });
  return checks;
}

/** A node's Ready and DiskPressure conditions: as read, else from what the snapshot kept of them. */
function conditionsOf(n: PrecheckNode): { type: string; status: string }[] {
  if (n.conditions) return n.conditions;
  const out: { type: string; status: string }[] = [];
  if (n.diskPressure !== null && n.diskPressure !== undefined)
    out.push({ type: "DiskPressure", status: n.diskPressure ? "True" : "False" });
  if (n.ready !== null) out.push({ type: "Ready", status: n.ready ? "True" : "False" });
  return out;
}

/**
 * The disk check of one pool, as the MCO makes it on each node for Fleetskew's set of that pool
 * (`checkNodeAllocatableStorage`, prefetchDisk.ts). Other sets are checked by the MCO on their own, so
 * they do not add to this one. Allocatable ephemeral storage is a fixed share of the disk, so the
 * remedy for too little is a bigger disk or a smaller bundle; DiskPressure (True or Unknown) is
 * about free space now, which freeing space does cure.
 */
function diskCheck(pool: string, nodes: PrecheckNode[], images: PrefetchImage[], bytes: number): Finding {
  const verdicts = nodes.map((n) => ({
    n,
    storage: checkPrefetchDisk({ name: n.name, allocatable: n.ephemeralBytes, conditions: [], images: n.images }, [images]),
  }));
  const short = verdicts.filter((v) => v.n.ephemeralBytes !== null && v.storage.ok === false);
  const pressed = nodes.filter((n) => conditionsOf(n).some((c) => c.type === "DiskPressure" && c.status !== "False"));
  const blocked = [...new Set([...short.map((v) => v.n), ...pressed])];
  const unknown = nodes.filter((n) => n.ephemeralBytes === null);
  const most = Math.max(0, ...verdicts.map((v) => v.storage.required));
  const need = formatBytes(most + MIN_FREE_AFTER_PREFETCH);
  if (blocked.length)
    return {
      id: "disk-space",
      pool,
      title: `Not enough disk on ${blocked.length} node${blocked.length === 1 ? "" : "s"} of ${pool}`,
      status: "fail",
      detail: [
        short.length
          ? `The MCO needs twice the size of the images a node does not hold yet (each layer counted once) plus 16 GiB of allocatable ephemeral storage, and refuses to pull otherwise ("${INSUFFICIENT_STORAGE}"). ` +
            short
              .map(
                (v) =>
                  `${v.n.name} has ${formatBytes(v.n.ephemeralBytes!)} and needs ${formatBytes(v.storage.required + MIN_FREE_AFTER_PREFETCH)}`,
              )
              .join("; ") +
            "."
          : null,
        pressed.length
          ? `${pressed.map((n) => `${n.name} reports DiskPressure=${conditionsOf(n).find((c) => c.type === "DiskPressure")!.status}`).join(", ")}: ` +
            `the MCO pulls nothing onto a node whose DiskPressure is not False ("node … is reporting OutOfDisk=…").`
          : null,
      ]
        .filter(Boolean)
        .join(" "),
      remedy: [
        short.length
          ? `Allocatable ephemeral storage is the part of the disk the kubelet gives pods; deleting files does not raise it. Grow the disk of ${short.map((v) => v.n.name).join(", ")} or use a smaller bundle.`
          : null,
        pressed.length
          ? `Free disk space on ${pressed.map((n) => n.name).join(", ")} (remove unused images with crictl rmi --prune, clear old logs) until the node reports DiskPressure=False.`
          : null,
        "Then check again.",
      ]
        .filter(Boolean)
        .join(" "),
      items: blocked.map((n) => n.name),
    };
  if (unknown.length)
    return {
      id: "disk-space",
      pool,
      title: `Disk space unknown on ${unknown.length} node${unknown.length === 1 ? "" : "s"} of ${pool}`,
      status: "warn",
      detail: `${unknown.map((n) => n.name).join(", ")} do not report allocatable ephemeral storage, so whether ${need} fits is not known (the MCO refuses a node that reports none).`,
      remedy: "Check the nodes' allocatable ephemeral storage by hand (oc describe node) before applying.",
      items: unknown.map((n) => n.name),
    };
  return {
    id: "disk-space",
    pool,
    title: `Disk space on ${pool}`,
    status: "pass",
    detail: `Every node of ${pool} has more than the ${need} the MCO requires for ${formatBytes(bytes)} of images (twice what a node does not hold yet, each layer counted once, plus 16 GiB).`,
    remedy: null,
    items: [],
  };
}

/**
 * Another PinnedImageSet failing on a node holds this bundle back there: the MCO checks every set of
 * the node's pools before pulling any and stops the sync at the first error
 * (`syncMachineConfigPool`), writing that error on every set (`updateStatusError`). The prefetch
 * timeout's requeue is no failure. A warning: the cause may be fixed before or after applying.
 */
function heldBackCheck(pool: string, nodes: PrecheckNode[], ours: string): Finding | null {
  const failing = nodes.flatMap((n) =>
    (n.pinned ?? [])
      .filter(
        (p) =>
          p.set !== ours &&
          p.error &&
          !isPrefetchRequeue(p.error) &&
          p.lastFailedGeneration !== null &&
          p.lastFailedGeneration >= (p.desiredGeneration ?? 0) &&
          (p.currentGeneration ?? 0) < (p.desiredGeneration ?? 1),
      )
      .slice(0, 1)
      .map((p) => ({ node: n.name, set: p.set, error: p.error! })),
  );
  if (!failing.length) return null;
  return {
    id: "pinned-sync-failing",
    pool,
    title: `Pinned images already fail on ${failing.length} node${failing.length === 1 ? "" : "s"} of ${pool}`,
    status: "warn",
    detail:
      `${failing.map((f) => `${f.node} (set ${f.set}: "${f.error}")`).join("; ")}. ` +
      "The MCO checks every PinnedImageSet of a node's pools before it pulls any and stops at the first error, so this bundle's images are not pulled there either until that is fixed.",
    remedy: "Fix the cause on those nodes (the set's message says what), or unpin the failing set if it is no longer needed.",
    items: failing.map((f) => f.node),
    keyItems: failing.map((f) => `${f.node}/${f.set}/${f.error}`),
  };
}
