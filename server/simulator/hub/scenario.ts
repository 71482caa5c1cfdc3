import type { ClusterSpec } from "../cluster";
import { generatedObjects, generateFleet, paramsFor, tokenFor, type ClusterParams } from "../scenarios/generate";
import { planFor } from "../scenarios/plan";
import { hexOf, uidOf } from "../scenarios/random";
import type { KubeObject } from "../objectStore";
import type { HubMemberInput } from "./hub";
import { LOCAL_CLUSTER, type HubClusterProfile } from "./objects";

/** The hub's cluster sets beside `default` and `global`; a cluster's set follows from its name. */
export const CLUSTER_SETS = ["prod-us", "prod-eu", "edge", "staging"];
const ENVIRONMENTS = ["production", "staging", "development"];
const JOINED = "2025-06-02T08:00:00Z";

const CLOUD: Record<ClusterParams["platform"], string> = {
  AWS: "AWS",
  GCP: "GCP",
  Azure: "Azure",
  VSphere: "VSphere",
  BareMetal: "BareMetal",
  None: "Other",
};

const kubeVersionOf = (ocp: string) => `v1.${Number(ocp.split(".")[1]) + 13}.7`;
const minorOf = (v: string) => v.split(".").slice(0, 2).join(".");

function adminLabels(name: string): { clusterSet: string; labels: Record<string, string> } {
  const h = parseInt(hexOf(`${name}/hub`, 4), 16);
  return { clusterSet: h % 7 === 0 ? "default" : CLUSTER_SETS[h % CLUSTER_SETS.length]!, labels: { environment: ENVIRONMENTS[h % 3]! } };
}

/** The hub's record of a generated cluster, from the same parameters its objects are built from. */
export function profileOfParams(p: ClusterParams, apiUrl: string, overrides: Partial<HubClusterProfile> = {}): HubClusterProfile {
  const plan = planFor(p);
  const version = p.history[0]!;
  return {
    name: p.name,
    product: "OpenShift",
    vendor: "OpenShift",
    platform: CLOUD[p.platform],
    region: p.region,
    controlPlaneTopology: plan.controlPlaneTopology,
    clusterID: uidOf(`${p.name}/id`),
    version,
    kubeVersion: kubeVersionOf(version),
    channel: `stable-${minorOf(version)}`,
    ...adminLabels(p.name),
    nodes: plan.pools.flatMap(({ name: pool, count }) =>
      Array.from({ length: count }, (_, i) => ({
        name: `${p.infraId}-${pool}-${i}`,
        roles: pool === "master" ? ["master", "control-plane", ...(p.topology !== "standard" ? ["worker"] : [])] : [pool],
        cpu: pool === "master" ? "8" : "16",
        memory: pool === "master" ? "32Gi" : "64Gi",
      })),
    ),
    apiUrl,
    proxyAddOnAvailable: true,
    joined: JOINED,
    ...overrides,
  };
}

/** The hub's record of a cluster whose objects are given (the reference clusters), read from them. */
export function profileOfObjects(name: string, objects: KubeObject[], apiUrl: string): HubClusterProfile {
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const cv = of("ClusterVersion")[0] as {
    spec: { clusterID: string; channel?: string };
    status: { history: { state: string; version: string }[] };
  };
  const infra = of("Infrastructure")[0] as {
    status: { platformStatus?: { type?: string; aws?: { region?: string } }; controlPlaneTopology?: string };
  };
  const version = cv.status.history.find((h) => h.state === "Completed")?.version ?? "";
  const platform = infra.status.platformStatus?.type ?? "None";
  return {
    name,
    product: "OpenShift",
    vendor: "OpenShift",
    platform: platform === "None" ? "Other" : platform,
    region: infra.status.platformStatus?.aws?.region ?? "",
    controlPlaneTopology: infra.status.controlPlaneTopology === "SingleReplica" ? "SingleReplica" : "HighlyAvailable",
    clusterID: cv.spec.clusterID,
    version,
    kubeVersion: kubeVersionOf(version),
    channel: cv.spec.channel ?? `stable-${minorOf(version)}`,
    ...adminLabels(name),
    nodes: of("Node").map((n) => ({
      name: n.metadata.name!,
      roles: Object.keys(n.metadata.labels ?? {})
        .filter((l) => l.startsWith("node-role.kubernetes.io/"))
        .map((l) => l.slice("node-role.kubernetes.io/".length)),
      cpu: String((n.status as { capacity?: { cpu?: string } })?.capacity?.cpu ?? "8"),
      memory: "32Gi",
    })),
    apiUrl,
    proxyAddOnAvailable: true,
    joined: JOINED,
  };
}

/** A generated OpenShift cluster under another name, for the special members of a hub. */
function generatedSpec(name: string, index: number, seed: number): { params: ClusterParams; spec: ClusterSpec } {
  // Renamed, with the infrastructure id the installer would derive from the new name.
  const infraId = `${name}-${hexOf(name, 5).replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)]!)}`;
  const params: ClusterParams = { ...paramsFor(index, seed), name, infraId, faults: undefined };
  return {
    params,
    spec: {
      name,
      ocpVersion: params.history[0]!,
      token: tokenFor(name, seed),
      readOnlyToken: tokenFor(`${name}-reader`, seed),
      objects: () => generatedObjects(params),
    },
  };
}

/**
 * The managed clusters of a simulated hub of `count` clusters: `local-cluster` (the hub itself),
 * the two reference clusters, a non-OpenShift cluster (EKS, nothing behind the proxy), a hosted
 * control plane (topology External), a cluster whose cluster-proxy add-on is unavailable, then
 * generated OpenShift clusters. `clusterUrl(name)` is where each one's own API is served.
 */
export function hubMembers(count: number, seed: number, clusterUrl: (name: string) => string): HubMemberInput[] {
  const special = (name: string, index: number, overrides: Partial<HubClusterProfile> = {}): HubMemberInput => {
    const { params, spec } = generatedSpec(name, index, seed);
    return { profile: profileOfParams(params, clusterUrl(name), overrides), backing: spec };
  };
  const fleet = generateFleet(Math.max(count, 0), seed);
  // The generator's own clusters: generated ones are described from their parameters (cheap at
  // 10,000), the hand-made ones (reference, registry-less) from their objects.
  const fromGenerator = (spec: ClusterSpec): HubMemberInput => {
    const index = /-(\d+)$/.exec(spec.name)?.[1];
    const params = index !== undefined ? paramsFor(Number(index), seed) : undefined;
    const profile =
      params?.name === spec.name
        ? profileOfParams(params, clusterUrl(spec.name))
        : profileOfObjects(spec.name, spec.objects(), clusterUrl(spec.name));
    return { profile, backing: spec };
  };
  const reference = fleet.slice(0, 2).map(fromGenerator);
  const eks: HubMemberInput = {
    profile: {
      name: "eks-analytics",
      product: "EKS",
      vendor: "EKS",
      platform: "AWS",
      region: "us-east-1",
      controlPlaneTopology: "HighlyAvailable",
      clusterID: uidOf("eks-analytics/id"),
      version: "",
      kubeVersion: "v1.30.5-eks-ce1d5eb",
      channel: "",
      clusterSet: "prod-us",
      labels: { environment: "production" },
      nodes: [
        { name: "ip-10-0-1-17.ec2.internal", roles: [], cpu: "8", memory: "32Gi" },
        { name: "ip-10-0-2-45.ec2.internal", roles: [], cpu: "8", memory: "32Gi" },
      ],
      apiUrl: "https://4f2a9c.gr7.us-east-1.eks.amazonaws.com",
      proxyAddOnAvailable: true,
      joined: JOINED,
    },
  };
  const members: HubMemberInput[] = [
    special(LOCAL_CLUSTER, 900_000, { clusterSet: "default", labels: { environment: "production" } }),
    ...reference,
    eks,
    special("hcp-tenant-1", 900_001, { controlPlaneTopology: "External", nodes: [] }),
    special("edge-no-proxy", 900_002, { proxyAddOnAvailable: false, clusterSet: "edge" }),
  ];
  for (const spec of fleet.slice(2)) {
    if (members.length >= count) break;
    members.push(fromGenerator(spec));
  }
  return members.slice(0, Math.max(count, 0));
}

/** A new OpenShift cluster for `addCluster` while the hub is watched. */
export function newMember(name: string, seed: number, clusterUrl: (name: string) => string, index = 950_000): HubMemberInput {
  const { params, spec } = generatedSpec(name, index, seed);
  return { profile: profileOfParams(params, clusterUrl(name)), backing: spec };
}
