import type { ClusterView } from "./index";

/**
 * The MCO's InternalReleaseImage controller and daemon, as far as their status goes, written from
 * openshift/machine-config-operator (main): pkg/controller/internalreleaseimage/aggregation.go
 * (`aggregateMCNIRIStatus`, `processMCNReleases`, `buildAggregatedReleases`,
 * `buildAPIIntUnavailableReleases`, `updateDegradedCondition`, `transformToAPIIntURL`),
 * internalreleaseimage_controller.go (`updateInternalReleaseImageStatusWithReleases`) and
 * pkg/daemon/internalreleaseimage/internalreleaseimage_manager.go (`refreshMachineConfigNodeStatus`,
 * `setMachineConfigNodeAsDegraded`). The registries themselves are not simulated: whether each node's
 * registry and api-int answer is the scenario's choice.
 */
type Any = Record<string, any>;
type Condition = {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
};

export const IRI_REGISTRY_PORT = 22625;
const REGISTRY_PATH = "/openshift/release-images";
const ZERO_DIGEST = "0".repeat(64);
const ALL_AVAILABLE = "AllReleasesAvailable";
const API_INT_DOWN = "ApiIntNotAvailable";
const NODES_NOT_READY = "SomeNodesUnavailable";
const REGISTRIES_DOWN = "SomeRegistriesUnavailable";
export const MCN_IRI_DEGRADED = "InternalReleaseImageDegraded";

/** `meta.SetStatusCondition`: replaces the condition of that type, keeping its transition time unless the status changed. */
function setCondition(list: Condition[], next: Condition, now: string): Condition[] {
  const old = list.find((c) => c.type === next.type);
  const merged = {
    ...next,
    lastTransitionTime: old && old.status === next.status ? old.lastTransitionTime : (next.lastTransitionTime ?? now),
  };
  return old ? list.map((c) => (c.type === next.type ? merged : c)) : [...list, merged];
}

/**
 * A node's MachineConfigNode status as its daemon leaves it: each release Available (its registry
 * answers) or, when the registry is unreachable, every release Degraded and not Available.
 */
export function nodeIriStatus(
  mcnStatus: Any,
  releases: { name: string; digest: string }[],
  registry: { reachable: true } | { reachable: false; error: string },
  now: string,
): Any {
  let conditions = (mcnStatus.conditions ?? []) as Condition[];
  const list = releases.map((r) => {
    const image = `localhost:${IRI_REGISTRY_PORT}${REGISTRY_PATH}@sha256:${r.digest}`;
    let rc: Condition[] = [];
    if (registry.reachable) {
      rc = setCondition(rc, { type: "Degraded", status: "False", reason: "ReleaseImageAvailable", message: "ReleaseImageAvailable" }, now);
      rc = setCondition(
        rc,
        { type: "Available", status: "True", reason: "ReleaseImageAvailable", message: "The specified release image is available" },
        now,
      );
    } else {
      rc = setCondition(rc, { type: "Degraded", status: "True", reason: "RegistryUnreachable", message: registry.error }, now);
      rc = setCondition(
        rc,
        {
          type: "Available",
          status: "False",
          reason: "RegistryUnreachable",
          message: "Release bundle is unavailable: failed to reach the registry",
        },
        now,
      );
    }
    return { name: r.name, image, conditions: rc };
  });
  conditions = setCondition(
    conditions,
    registry.reachable
      ? { type: MCN_IRI_DEGRADED, status: "False", reason: ALL_AVAILABLE, message: "All the release images are available" }
      : { type: MCN_IRI_DEGRADED, status: "True", reason: "RegistryUnreachable", message: registry.error },
    now,
  );
  return { ...mcnStatus, conditions, internalReleaseImage: { releases: list } };
}

/** `transformToAPIIntURL`: localhost:22625/… → api-int.<domain>:22625/…; unchanged without a port. */
export function transformToAPIIntURL(image: string, clusterDomain: string): string {
  const slash = image.indexOf("/");
  const hostPort = slash >= 0 ? image.slice(0, slash) : image;
  const colon = hostPort.indexOf(":");
  return colon < 0 ? image : `api-int.${clusterDomain}${image.slice(colon)}`;
}

const isControlPlane = (node: Any | undefined) => {
  const labels = node?.metadata?.labels ?? {};
  return "node-role.kubernetes.io/master" in labels || "node-role.kubernetes.io/control-plane" in labels;
};
const isReady = (node: Any | undefined) => (node?.status?.conditions ?? []).some((c: Any) => c.type === "Ready" && c.status === "True");

export type IriInput = {
  iri: Any;
  mcns: Any[];
  nodes: Any[];
  clusterDomain: string;
  /** Whether `https://api-int.<domain>:22625/v2/` answers (`pingRegistry`). */
  apiIntReachable: boolean;
  now: string;
};

/** One controller sync: the InternalReleaseImage's new status (`updateInternalReleaseImageStatusWithReleases`). */
export function syncInternalReleaseImage(input: IriInput): Any {
  const { iri, clusterDomain, now } = input;
  const specReleases = ((iri.spec?.releases ?? []) as Any[]).filter((r) => typeof r?.name === "string");
  const nodeByName = new Map(input.nodes.map((n) => [n.metadata?.name, n]));
  const controlPlane = input.mcns
    .filter((m) => isControlPlane(nodeByName.get(m.metadata?.name)))
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const apiIntHost = `api-int.${clusterDomain}:${IRI_REGISTRY_PORT}`;
  const placeholder = `${apiIntHost}${REGISTRY_PATH}@sha256:${ZERO_DIGEST}`;

  let releases: Any[] | null = null;
  let iriStatus = ALL_AVAILABLE;
  const degradedNodes: string[] = [];
  const notReadyNodes: string[] = [];
  if (controlPlane.length === 0) {
    // No control-plane MCNs: nothing to aggregate, releases left as they are.
  } else if (!input.apiIntReachable) {
    iriStatus = API_INT_DOWN;
    releases = specReleases.map((r) => ({
      name: r.name,
      image: placeholder,
      conditions: [
        {
          type: "Available",
          status: "False",
          reason: API_INT_DOWN,
          message: "The specified release image is not available",
          lastTransitionTime: now,
        },
        { type: "Degraded", status: "True", reason: API_INT_DOWN, message: API_INT_DOWN, lastTransitionTime: now },
      ],
    }));
  } else {
    const releaseMap = new Map<string, Any>();
    for (const mcn of controlPlane) {
      let healthy = true;
      if (!isReady(nodeByName.get(mcn.metadata.name))) {
        iriStatus = NODES_NOT_READY;
        notReadyNodes.push(mcn.metadata.name);
        healthy = false;
      }
      const degraded = ((mcn.status?.conditions ?? []) as Any[]).find((c) => c.type === MCN_IRI_DEGRADED);
      if (degraded?.status === "True") {
        iriStatus = REGISTRIES_DOWN;
        degradedNodes.push(mcn.metadata.name);
        healthy = false;
      }
      for (const r of (mcn.status?.internalReleaseImage?.releases ?? []) as Any[])
        if (!releaseMap.has(r.name) || healthy)
          releaseMap.set(r.name, {
            name: r.name,
            image: transformToAPIIntURL(r.image ?? "", clusterDomain),
            conditions: r.conditions ?? [],
          });
    }
    degradedNodes.sort();
    notReadyNodes.sort();
    const degradedMessage = `The following nodes are degraded: [${degradedNodes.join(", ")}]. See the related MachineConfigNode resource status for more details.`;
    const notReadyMessage = `The following nodes are not ready: [${notReadyNodes.join(", ")}].`;
    releases = specReleases.map((spec) => {
      const found = releaseMap.get(spec.name);
      if (found) {
        if (iriStatus === REGISTRIES_DOWN || iriStatus === NODES_NOT_READY)
          found.conditions = setCondition(
            [...found.conditions],
            {
              type: "Degraded",
              status: "True",
              reason: iriStatus,
              message: iriStatus === REGISTRIES_DOWN ? degradedMessage : notReadyMessage,
            },
            now,
          );
        return found;
      }
      const [reason, message] = degradedNodes.length
        ? [REGISTRIES_DOWN, degradedMessage]
        : notReadyNodes.length
          ? [NODES_NOT_READY, notReadyMessage]
          : ["ReleaseImageNotAvailable", "The specified release image is not available"];
      return {
        name: spec.name,
        image: placeholder,
        conditions: [
          {
            type: "Available",
            status: "False",
            reason: "ReleaseImageNotAvailable",
            message: "The specified release image is not available",
            lastTransitionTime: now,
          },
          { type: "Degraded", status: "True", reason, message, lastTransitionTime: now },
        ],
      };
    });
  }

  const generation = iri.metadata?.generation;
  const condition: Condition =
    iriStatus === API_INT_DOWN
      ? { type: "Degraded", status: "True", reason: API_INT_DOWN, message: `Unable to reach any registry via ${apiIntHost}` }
      : iriStatus === NODES_NOT_READY
        ? {
            type: "Degraded",
            status: "True",
            reason: NODES_NOT_READY,
            message: `The following nodes are not ready: [${notReadyNodes.join(", ")}]. See the related Node resource status for more details.`,
          }
        : iriStatus === REGISTRIES_DOWN
          ? {
              type: "Degraded",
              status: "True",
              reason: REGISTRIES_DOWN,
              message: `The following nodes are degraded: [${degradedNodes.join(", ")}]. See the related MachineConfigNode resource status for more details.`,
            }
          : { type: "Degraded", status: "False", reason: ALL_AVAILABLE, message: "All the release images are available" };
  const status = iri.status ?? {};
  return {
    ...status,
    conditions: setCondition(status.conditions ?? [], generation ? { ...condition, observedGeneration: generation } : condition, now),
    releases: releases ?? status.releases ?? [],
  };
}

/** One controller pass on a cluster with an InternalReleaseImage; nothing on one without. */
export function reconcileInternalReleaseImage(view: ClusterView, apiIntReachable = true): void {
  const iri = view.get("InternalReleaseImage", "cluster");
  if (!iri) return;
  const apiUrl: string = view.get("Infrastructure", "cluster")?.status?.apiServerURL ?? "";
  const clusterDomain = /^https:\/\/api\.([^:/]+)/.exec(apiUrl)?.[1] ?? "cluster.local";
  const status = syncInternalReleaseImage({
    iri,
    mcns: view.list("MachineConfigNode"),
    nodes: view.list("Node"),
    clusterDomain,
    apiIntReachable,
    now: view.now(),
  });
  view.put("InternalReleaseImage", { ...structuredClone(iri), status }, "status");
}
