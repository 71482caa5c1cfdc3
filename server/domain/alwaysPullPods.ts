/* Pods that pull their images on every start: a pinned bundle does not keep them off the registry. */

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
