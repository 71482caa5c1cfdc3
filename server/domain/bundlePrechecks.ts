import { createHash } from "node:crypto";
import { formatBytes, MIN_FREE_AFTER_PREFETCH, pinnedImageSetName, RELEASE_LABEL, totalBytes, type BundleManifest } from "./bundleManifest";
import { selectorMatches, type LabelSelector } from "./labelSelector";
import type { NodeFacts } from "./snapshot";

/**
 * What is checked on a cluster before a bundle's images are pinned there: pools, disk, pods that
 * always pull, other pinned sets. Pure: the cluster's objects come in as arguments.
 */
export type PrecheckStatus = "pass" | "warn" | "fail";
export type Precheck = {
  id: string;
  /**
   * This finding's identity: the check, its pool and what it names. A warning is confirmed by its
   * key, so one that changed or appeared since the person read the prechecks is not confirmed.
   */
  key: string;
  /** The pool the check is about; null for the whole cluster. */
  pool: string | null;
  title: string;
  status: PrecheckStatus;
  detail: string;
  /** What the technician can do about it; null when nothing is needed. */
  remedy: string | null;
  /** Nodes, pods or sets the check names. */
  items: string[];
};

export type PrecheckPool = {
  name: string;
  machineConfigSelector?: LabelSelector;
  degraded: boolean;
  updating: boolean;
  degradedMessage: string | null;
};
export type PrecheckNode = Pick<NodeFacts, "name" | "pool" | "ephemeralBytes" | "ready" | "diskPressure">;
export type PrecheckPod = {
  namespace: string;
  name: string;
  node: string | null;
  containers: string[];
  /** The workload that keeps the pod (see podOwner); null or absent for a bare pod. */
  owner?: { kind: string; name: string } | null;
  /** The images of the containers that always pull. */
  images?: string[];
};

/** A pod as the API serves it, as far as the always-pull check reads it. */
export type PodLike = {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  };
  spec?: {
    nodeName?: string;
    containers?: { name: string; image?: string; imagePullPolicy?: string }[];
    initContainers?: { name: string; image?: string; imagePullPolicy?: string }[];
  };
  status?: { phase?: string };
};

/**
 * The workload that keeps a pod, by a name that outlives the pod: its controller owner
 * (ownerReferences with controller: true), lifted to the object that names it for good where the
 * owner itself is replaced routinely: a Deployment's ReplicaSet (a new one on every rollout or
 * restart, named <deployment>-<pod-template-hash>), a CronJob's Job (one per run, named
 * <cronjob>-<scheduled minute>), a DeploymentConfig's ReplicationController. Null for a bare pod.
 */
export function podOwner(meta: PodLike["metadata"]): { kind: string; name: string } | null {
  const ref = (meta.ownerReferences ?? []).find((o) => o.controller === true);
  if (!ref) return null;
  const labels = meta.labels ?? {};
  const hash = labels["pod-template-hash"];
  if (ref.kind === "ReplicaSet" && hash && ref.name.endsWith(`-${hash}`))
    return { kind: "Deployment", name: ref.name.slice(0, -(hash.length + 1)) };
  const run = /^(.+)-\d{8,}$/.exec(ref.name);
  if (ref.kind === "Job" && run) return { kind: "CronJob", name: run[1]! };
  const dc = labels["openshift.io/deployment-config.name"] ?? labels["deploymentconfig"];
  if (ref.kind === "ReplicationController" && dc) return { kind: "DeploymentConfig", name: dc };
  return { kind: ref.kind, name: ref.name };
}

/** A running pod with a container whose imagePullPolicy is Always; null for any other pod. */
export function alwaysPullPod(pod: PodLike): PrecheckPod | null {
  if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return null;
  const always = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].filter((c) => c.imagePullPolicy === "Always");
  if (!always.length) return null;
  return {
    namespace: pod.metadata.namespace ?? "",
    name: pod.metadata.name,
    node: pod.spec?.nodeName ?? null,
    containers: always.map((c) => c.name),
    owner: podOwner(pod.metadata),
    images: [...new Set(always.map((c) => c.image ?? ""))].sort(),
  };
}

/**
 * What an always-pull warning is about, for its key: the workload and the images it pulls, not the
 * pod's name, which changes with every rollout, restart and CronJob run. A bare pod counts by its
 * namespace and images; one read without its images (older callers) by its name.
 */
export function alwaysPullIdentity(p: PrecheckPod): string {
  const images = p.images?.length ? p.images.join(",") : null;
  if (p.owner) return `${p.namespace}/${p.owner.kind}/${p.owner.name}${images ? `@${images}` : ""}`;
  return images ? `${p.namespace}@${images}` : `${p.namespace}/${p.name}`;
}
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
};

/**
 * The MCO's disk check for a prefetch (reference §6): allocatable ephemeral storage must be at
 * least 16 GiB, and twice the images' size must fit below it minus 16 GiB. Images already on the
 * node are not counted by the MCO; Fleetskew cannot see them, so it counts them all (stricter).
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
  const checks: Finding[] = [];
  const bytes = totalBytes(input.manifest);
  const nodesByPool = new Map<string, PrecheckNode[]>();
  for (const n of input.nodes) nodesByPool.set(n.pool ?? "", [...(nodesByPool.get(n.pool ?? "") ?? []), n]);
  const unavailable = (part: PrecheckInput["unavailable"][number]["part"]) => input.unavailable.find((u) => u.part === part);

  for (const pool of input.pools) {
    const nodes = nodesByPool.get(pool.name) ?? [];
    if (!labelsForPool(pool, input.pools))
      checks.push({
        id: "pool-not-selectable",
        pool: pool.name,
        title: `Pool ${pool.name} cannot receive pinned images`,
        status: "fail",
        detail: `The MCO gives a PinnedImageSet to the pools whose machineConfigSelector matches its labels, and no labels Fleetskew can derive from ${pool.name}'s selector match it.`,
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

    if (nodes.length === 0 && !unavailable("nodes")) {
      checks.push({
        id: "disk-space",
        pool: pool.name,
        title: `No nodes in pool ${pool.name}`,
        status: "pass",
        detail: `The ${pool.name} pool has no nodes, so nothing is pulled there.`,
        remedy: null,
        items: [],
      });
      continue;
    }
    const short = nodes.filter((n) => diskVerdict(n.ephemeralBytes, bytes).ok === false);
    // The MCO pins nothing on a node that reports DiskPressure (reference §6), whatever its allocatable storage.
    const pressed = nodes.filter((n) => n.diskPressure === true);
    const blocked = [...new Set([...short, ...pressed])];
    const unknown = nodes.filter((n) => n.ephemeralBytes === null);
    const need = formatBytes(2 * bytes + MIN_FREE_AFTER_PREFETCH);
    if (blocked.length)
      checks.push({
        id: "disk-space",
        pool: pool.name,
        title: `Not enough disk on ${blocked.length} node${blocked.length === 1 ? "" : "s"} of ${pool.name}`,
        status: "fail",
        detail: [
          short.length
            ? `The MCO needs twice the images' size (${formatBytes(2 * bytes)}) plus 16 GiB of allocatable ephemeral storage, ${need} in all, and refuses to pull otherwise. ` +
              short.map((n) => `${n.name} has ${formatBytes(n.ephemeralBytes!)}`).join("; ") +
              "."
            : null,
          pressed.length
            ? `${pressed.map((n) => n.name).join(", ")} ${pressed.length === 1 ? "is" : "are"} running out of disk right now (the node reports DiskPressure), and the MCO does not pull images onto a node in that state.`
            : null,
        ]
          .filter(Boolean)
          .join(" "),
        remedy: `Free disk space on ${blocked.map((n) => n.name).join(", ")} (remove unused images with crictl rmi --prune, clear old logs)${
          pressed.length ? " until the node no longer reports DiskPressure" : ""
        }${short.length ? " or use a smaller bundle" : ""}, then check again.`,
        items: blocked.map((n) => n.name),
      });
    else if (unknown.length)
      checks.push({
        id: "disk-space",
        pool: pool.name,
        title: `Disk space unknown on ${unknown.length} node${unknown.length === 1 ? "" : "s"} of ${pool.name}`,
        status: "warn",
        detail: `${unknown.map((n) => n.name).join(", ")} do not report allocatable ephemeral storage, so whether ${need} fits is not known.`,
        remedy: "Check the nodes' free disk space by hand before applying.",
        items: unknown.map((n) => n.name),
      });
    else
      checks.push({
        id: "disk-space",
        pool: pool.name,
        title: `Disk space on ${pool.name}`,
        status: "pass",
        detail: `Every node of ${pool.name} has more than the ${need} the MCO requires for ${formatBytes(bytes)} of images.`,
        remedy: null,
        items: [],
      });

    const notReady = nodes.filter((n) => n.ready === false);
    if (notReady.length)
      checks.push({
        id: "nodes-not-ready",
        pool: pool.name,
        title: `${notReady.length} node${notReady.length === 1 ? " is" : "s are"} not ready in ${pool.name}`,
        status: "warn",
        detail: `The MCO pulls pinned images only on Ready nodes: ${notReady.map((n) => n.name).join(", ")} will wait.`,
        remedy: "Find out why the node is not ready; it pulls the images once it is.",
        items: notReady.map((n) => n.name),
      });
  }

  const pods = unavailable("pods");
  if (pods)
    checks.push({
      id: "always-pull-pods",
      pool: null,
      title: "Pods that always pull their image: not checked",
      status: "warn",
      detail: `The pods could not be listed (${pods.reason}), so pods that will need a registry after the reboot are not known.`,
      remedy: "Ask an admin for the pods list permission, or check by hand for imagePullPolicy: Always.",
      items: [],
    });
  else if (input.alwaysPullPods.length)
    checks.push({
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
    });
  else
    checks.push({
      id: "always-pull-pods",
      pool: null,
      title: "No pods always pull their image",
      status: "pass",
      detail: "No pod uses imagePullPolicy: Always, so nothing needs a registry after the nodes reboot.",
      remedy: null,
      items: [],
    });

  const sets = unavailable("pinned image sets");
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

/** Pools a PinnedImageSet with these labels lands in, as the MCO selects them (reference §6). */
export function poolsSelecting(pools: Pick<PrecheckPool, "name" | "machineConfigSelector">[], labels: Record<string, string>): string[] {
  return pools.filter((p) => selectorMatches(p.machineConfigSelector, labels)).map((p) => p.name);
}

export const ROLE_LABEL = "machineconfiguration.openshift.io/role";

/**
 * Labels that put a PinnedImageSet in `pool`: the MCO gives a set to every pool whose
 * machineConfigSelector matches its labels (reference §6), so the labels come from the pool's own
 * selector. Candidates are the usual `role: <pool>`, the selector's matchLabels, and each value of
 * its `In` expressions; of those the pool selects, the one fewest other pools select wins (a custom
 * pool such as infra usually selects `role In [worker, infra]`: `role: infra` keeps the worker pool
 * out). Null when no candidate is selected by the pool.
 */
export function labelsForPool(
  pool: Pick<PrecheckPool, "name" | "machineConfigSelector">,
  pools: Pick<PrecheckPool, "name" | "machineConfigSelector">[],
): Record<string, string> | null {
  const selector = pool.machineConfigSelector;
  const candidates: Record<string, string>[] = [{ [ROLE_LABEL]: pool.name }];
  if (selector?.matchLabels && Object.keys(selector.matchLabels).length) candidates.push({ ...selector.matchLabels });
  for (const e of selector?.matchExpressions ?? [])
    if (e.operator === "In") for (const v of e.values ?? []) candidates.push({ ...selector?.matchLabels, [e.key]: v });
  const fitting = candidates.filter((c) => selectorMatches(selector, c));
  if (!fitting.length) return null;
  return fitting.map((labels) => ({ labels, others: poolsSelecting(pools, labels).length })).sort((a, b) => a.others - b.others)[0]!.labels;
}
