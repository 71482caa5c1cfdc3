import { createHash } from "node:crypto";
import { z } from "zod";
import { selectorMatches, type LabelSelector } from "./labelSelector";
import type { NodeFacts, PinnedImageProgress } from "./snapshot";
import { parseOcpVersion } from "./versions";

/**
 * Upgrade bundles for disconnected sites (docs/bundle-format.md): the manifest, what is checked
 * before its images are pinned, and how each node's pre-load reads in plain words. Pure: the
 * cluster's objects come in as arguments.
 */

const GiB = 1024 ** 3;
/** The MCO keeps this much allocatable ephemeral storage free after a prefetch (`MinFreeStorageAfterPrefetch`, reference §6). */
export const MIN_FREE_AFTER_PREFETCH = 16 * GiB;

// The PinnedImageSet API's own image reference rules (ImageDigestFormat): host[:port][/namespace]/name@sha256:<64 hex>, ≤ 447 chars.
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const NAME = /^([a-zA-Z0-9-]+\.)+[a-zA-Z0-9-]+(:[0-9]{2,5})?\/([a-zA-Z0-9-_]{0,61}\/)?[a-zA-Z0-9-_.]*?$/;

/** Why an image reference is not one the cluster would pin; null when it is fine. */
export function imageReferenceProblem(ref: string): string | null {
  if (ref.length === 0 || ref.length > 447) return "must be 1 to 447 characters long";
  const parts = ref.split("@");
  if (parts.length !== 2) {
    const tag = /:([^/:]+)$/.exec(ref)?.[1];
    return tag ? `names the tag "${tag}"; a bundle pins images by digest (…@sha256:<64 hex>)` : "has no @sha256:<digest>";
  }
  if (!DIGEST.test(parts[1]!)) return "must end in @sha256: and 64 lowercase hex characters";
  if (!NAME.test(parts[0]!)) return "must be host[:port][/namespace]/name before the digest";
  return null;
}

const ImageRef = z.string().superRefine((ref, ctx) => {
  const problem = imageReferenceProblem(ref);
  if (problem) ctx.addIssue({ code: "custom", message: `"${ref.length > 120 ? `${ref.slice(0, 117)}…` : ref}" ${problem}` });
});

/**
 * The refusal of a manifest whose images[] lacks the release image. Manifests vetted before this
 * rule hit it on upload, and editing one changes its digest, so it says what to do: rebuild, vet again.
 */
export const RELEASE_IMAGE_MISSING =
  "does not list the release image (release.image). Fleetskew pins the release image with the others and counts its size in the disk check, " +
  "so images[] must list it with its sizeBytes. The manifest cannot be fixed by editing it (that changes its digest, and the vetting no longer applies): " +
  "the bundle must be rebuilt with the release image listed in images[], with its size, and the new manifest vetted again";

/** Images one manifest may list: what one PinnedImageSet takes. */
export const MAX_IMAGES = 500;

export const BundleManifestSchema = z
  .strictObject({
    apiVersion: z.literal("fleetskew.io/v1", { error: 'must be "fleetskew.io/v1"' }),
    kind: z.literal("UpgradeBundle", { error: 'must be "UpgradeBundle"' }),
    release: z.strictObject({
      version: z
        .string()
        .regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/, "must be an OpenShift release like 4.19.11")
        .refine((v) => parseOcpVersion(v) !== null, "must be an OpenShift release like 4.19.11"),
      image: ImageRef,
    }),
    images: z
      .array(
        z.strictObject({
          name: ImageRef,
          // 1 TiB: far above any container image, and 500 of them still add up exactly in a JavaScript number.
          sizeBytes: z
            .number()
            .int("must be a whole number of bytes")
            .positive("must be more than 0")
            .max(2 ** 40, "must be at most 1 TiB"),
        }),
      )
      .min(1, "must list at least one image")
      .max(MAX_IMAGES, `may list at most ${MAX_IMAGES} images (the PinnedImageSet limit)`)
      .superRefine((images, ctx) => {
        const seen = new Set<string>();
        images.forEach((image, i) => {
          if (seen.has(image.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `${image.name} is listed twice` });
          seen.add(image.name);
        });
      }),
    createdAt: z.iso.datetime({ offset: true, error: "must be an ISO 8601 time, e.g. 2026-11-01T09:00:00Z" }),
  })
  // The release image is pinned too, so its size must count in the disk check: it is listed with the others, once.
  .superRefine((m, ctx) => {
    if (m.release?.image && Array.isArray(m.images) && !m.images.some((i) => i?.name === m.release.image))
      ctx.addIssue({
        code: "custom",
        path: ["images"],
        message: RELEASE_IMAGE_MISSING,
      });
  });

export type BundleManifest = z.infer<typeof BundleManifestSchema>;

/** The digest a bundle is vetted and known by: sha256 of the manifest file exactly as uploaded. */
export const manifestDigest = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

export const SHA256_HEX = /^[a-f0-9]{64}$/;

/** A digest as people paste it: optional "sha256:" prefix, any case, surrounding space. */
export function normalizeDigest(text: string): string | null {
  const hex = text
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, "");
  return SHA256_HEX.test(hex) ? hex : null;
}

export type ManifestCheck = { ok: true; manifest: BundleManifest } | { ok: false; problems: string[] };

/** Parses and validates a manifest's text; every problem is named with where it is. */
export function checkManifest(text: string): ManifestCheck {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`the manifest is not valid JSON: ${(error as Error).message}`] };
  }
  // Checked before the schema: a list of a million entries would otherwise be judged entry by entry.
  const images = (data as { images?: unknown } | null)?.images;
  if (Array.isArray(images) && images.length > MAX_IMAGES)
    return {
      ok: false,
      problems: [`images: may list at most ${MAX_IMAGES} images (the PinnedImageSet limit); this one lists ${images.length}`],
    };
  const parsed = BundleManifestSchema.safeParse(data);
  if (parsed.success) return { ok: true, manifest: parsed.data };
  const short = (text: string) => (text.length > 1000 ? `${text.slice(0, 1000)}…` : text);
  return {
    ok: false,
    problems: parsed.error.issues.slice(0, 20).map((issue) => {
      const where = issue.path.length ? issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("") : "";
      return short(`${where ? where.replace(/^\./, "") : "the manifest"}: ${issue.message}`);
    }),
  };
}

/**
 * The size of everything pinned: images[] lists the release image too (the manifest rule), each
 * image once. A manifest stored before that rule may lack it; its total then leaves it out.
 */
export const totalBytes = (m: BundleManifest) => m.images.reduce((sum, i) => sum + i.sizeBytes, 0);

/** Every image the cluster should hold for the update: the release image and the bundle's list. */
export function pinnedImagesOf(m: BundleManifest): string[] {
  return [...new Set([m.release.image, ...m.images.map((i) => i.name)])];
}

/** The PinnedImageSet name for one pool: bundle release and digest, so two bundles never share one. */
export function pinnedImageSetName(m: BundleManifest, digest: string, pool: string): string {
  const name = `fleetskew-${m.release.version.replace(/\./g, "-")}-${digest.slice(0, 8)}-${pool}`;
  return name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 253);
}

export const BUNDLE_LABEL = "fleetskew.io/bundle";
export const RELEASE_LABEL = "fleetskew.io/release";

export const formatBytes = (n: number) =>
  n >= GiB
    ? `${(n / GiB).toFixed(1)} GiB`
    : n >= 1024 ** 2
      ? `${(n / 1024 ** 2).toFixed(0)} MiB`
      : `${Math.max(0, Math.round(n / 1024))} KiB`;

// ---------------------------------------------------------------------------------------------
// Prechecks

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

// ---------------------------------------------------------------------------------------------
// Progress per node

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
