import type { KindInfo } from "../kinds";
import type { KubeObject } from "../objectStore";
import { HUB_KINDS } from "./kinds";

/**
 * What the hub knows of one managed cluster: the facts its agents report (claims, labels, node list)
 * and the hub's view of it. Objects are built from this so that a scenario of 10,000 clusters is a
 * list of small records until it is served.
 */
export type HubClusterProfile = {
  name: string;
  /** `product.open-cluster-management.io` claim: OpenShift, ROSA, EKS, … (docs/acm.md §1). */
  product: string;
  /** `vendor` label: OpenShift for every OpenShift product, else the product. */
  vendor: string;
  /** `platform.open-cluster-management.io` claim and `cloud` label: AWS, GCP, Azure, VSphere, BareMetal, Other. */
  platform: string;
  region: string;
  /** `controlplanetopology.openshift.io` claim: HighlyAvailable, SingleReplica or External (hosted control plane). */
  controlPlaneTopology: "HighlyAvailable" | "SingleReplica" | "External";
  /** ClusterVersion spec.clusterID (`id.openshift.io`), or a Kubernetes id for a non-OpenShift cluster. */
  clusterID: string;
  /** OpenShift version (newest Completed history entry); empty for a non-OpenShift cluster. */
  version: string;
  kubeVersion: string;
  channel: string;
  clusterSet: string;
  /** Further labels the hub administrators set (environment, site, …). */
  labels: Record<string, string>;
  nodes: { name: string; roles: string[]; cpu: string; memory: string }[];
  /** URL of the cluster's own API (spec.managedClusterClientConfigs). */
  apiUrl: string;
  /** The `cluster-proxy` add-on reports Available. */
  proxyAddOnAvailable: boolean;
  /** When the hub accepted the cluster. */
  joined: string;
};

export const LOCAL_CLUSTER = "local-cluster";
export const CLUSTER_SET_LABEL = "cluster.open-cluster-management.io/clusterset";
export const PROXY_ADDON = "cluster-proxy";
/** Where the managed-serviceaccount agent creates ServiceAccounts on the managed cluster (MSA addon default). */
export const ADDON_INSTALL_NAMESPACE = "open-cluster-management-agent-addon";
/** MultiClusterEngine spec.targetNamespace default: the namespace of the cluster-proxy user-server Service. */
export const MCE_NAMESPACE = "multicluster-engine";

const OPENSHIFT_PRODUCTS = ["OpenShift", "OpenShiftDedicated", "ROSA", "ARO", "ROKS", "OCP"];
export const isOpenShift = (p: HubClusterProfile) => OPENSHIFT_PRODUCTS.includes(p.product);

type Condition = { type: string; status: "True" | "False" | "Unknown"; reason: string; message: string; lastTransitionTime: string };
const condition = (type: string, status: Condition["status"], reason: string, message: string, at: string): Condition => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: at,
});

/** ManagedCluster Available condition, live or after the agent's lease expired (OCM registration hub lease controller). */
export function availableCondition(leaseExpired: boolean, at: string): Condition {
  return leaseExpired
    ? condition(
        "ManagedClusterConditionAvailable",
        "Unknown",
        "ManagedClusterLeaseUpdateStopped",
        "Registration agent stopped updating its lease.",
        at,
      )
    : condition("ManagedClusterConditionAvailable", "True", "ManagedClusterAvailable", "Managed cluster is available", at);
}

/** Labels MOF's autodetect controller and the hub set (docs/acm.md §1). */
export function managedClusterLabels(p: HubClusterProfile): Record<string, string> {
  const [major, minor] = p.version.split(".");
  return {
    cloud: p.platform === "VSphere" ? "vSphere" : p.platform,
    vendor: p.vendor,
    clusterID: p.clusterID,
    ...(p.version
      ? { openshiftVersion: p.version, "openshiftVersion-major": major!, "openshiftVersion-major-minor": `${major}.${minor}` }
      : {}),
    name: p.name,
    [CLUSTER_SET_LABEL]: p.clusterSet,
    ...(p.name === LOCAL_CLUSTER ? { "local-cluster": "true" } : {}),
    ...p.labels,
  };
}

/** `caBundle`: base64 PEM the cluster's API serving certificate chains to. */
export function managedCluster(p: HubClusterProfile, uid: string, caBundle = ""): KubeObject {
  const openshift = isOpenShift(p);
  const claims: [string, string][] = [
    ["id.k8s.io", p.clusterID],
    ["kubeversion.open-cluster-management.io", p.kubeVersion],
    ["platform.open-cluster-management.io", p.platform],
    ["product.open-cluster-management.io", p.product],
    ["region.open-cluster-management.io", p.region],
    ...(openshift
      ? ([
          ["id.openshift.io", p.clusterID],
          ["version.openshift.io", p.version],
          ["controlplanetopology.openshift.io", p.controlPlaneTopology],
          ["apiserverurl.openshift.io", p.apiUrl],
          ["consoleurl.cluster.open-cluster-management.io", `https://console-openshift-console.apps.${p.name}.example.com`],
        ] as [string, string][])
      : []),
  ];
  const cpu = p.nodes.reduce((sum, n) => sum + Number(n.cpu), 0);
  const memoryGi = p.nodes.reduce((sum, n) => sum + Number(n.memory.replace(/Gi$/, "")), 0);
  return {
    apiVersion: "cluster.open-cluster-management.io/v1",
    kind: "ManagedCluster",
    metadata: {
      name: p.name,
      uid,
      creationTimestamp: p.joined,
      labels: managedClusterLabels(p),
      annotations: { "open-cluster-management/created-via": p.name === LOCAL_CLUSTER ? "other" : "discovery" },
      finalizers: ["cluster.open-cluster-management.io/api-resource-cleanup"],
    },
    spec: {
      hubAcceptsClient: true,
      leaseDurationSeconds: 60,
      managedClusterClientConfigs: [{ url: p.apiUrl, caBundle }],
    },
    status: {
      conditions: [
        condition("HubAcceptedManagedCluster", "True", "HubClusterAdminAccepted", "Accepted by hub cluster admin", p.joined),
        condition("ManagedClusterJoined", "True", "ManagedClusterJoined", "Managed cluster joined", p.joined),
        availableCondition(false, p.joined),
      ],
      version: { kubernetes: p.kubeVersion },
      capacity: { cpu: String(cpu), memory: `${memoryGi}Gi` },
      allocatable: { cpu: String(Math.max(cpu - p.nodes.length, 0)), memory: `${Math.max(memoryGi - 2 * p.nodes.length, 0)}Gi` },
      clusterClaims: claims.map(([name, value]) => ({ name, value })),
    },
  };
}

/** ManagedClusterInfo, as MOF's klusterlet clusterinfo controller reports it (docs/acm.md §1). */
export function managedClusterInfo(p: HubClusterProfile, uid: string): KubeObject {
  const openshift = isOpenShift(p);
  return {
    apiVersion: "internal.open-cluster-management.io/v1beta1",
    kind: "ManagedClusterInfo",
    metadata: { name: p.name, namespace: p.name, uid, creationTimestamp: p.joined, labels: managedClusterLabels(p) },
    spec: { masterEndpoint: p.apiUrl, loggingCA: "" },
    status: {
      conditions: [condition("ManagedClusterInfoSynced", "True", "ManagedClusterInfoSynced", "Managed cluster info is synced", p.joined)],
      version: p.kubeVersion,
      kubeVendor: openshift ? "OpenShift" : p.vendor,
      cloudVendor: p.platform,
      clusterID: p.clusterID,
      consoleURL: openshift ? `https://console-openshift-console.apps.${p.name}.example.com` : "",
      distributionInfo: openshift
        ? {
            type: "OCP",
            ocp: {
              version: p.version,
              desired: { version: p.version, channels: [p.channel] },
              desiredVersion: p.version,
              channel: p.channel,
              upgradeFailed: false,
              versionAvailableUpdates: [],
              versionHistory: [{ version: p.version, state: "Completed", verified: false }],
            },
          }
        : { type: "UNKNOWN" },
      nodeList: p.nodes.map((n) => ({
        name: n.name,
        labels: Object.fromEntries(n.roles.map((r) => [`node-role.kubernetes.io/${r}`, ""])),
        capacity: { cpu: n.cpu, memory: n.memory },
        conditions: [{ type: "Ready", status: "True" }],
      })),
    },
  };
}

/** The `cluster-proxy` ManagedClusterAddOn in the cluster's namespace (addon v1alpha1, condition Available). */
export function proxyAddOn(p: HubClusterProfile, uid: string): KubeObject {
  const at = p.joined;
  return {
    apiVersion: "addon.open-cluster-management.io/v1alpha1",
    kind: "ManagedClusterAddOn",
    metadata: { name: PROXY_ADDON, namespace: p.name, uid, creationTimestamp: at },
    spec: { installNamespace: ADDON_INSTALL_NAMESPACE },
    status: {
      namespace: ADDON_INSTALL_NAMESPACE,
      conditions: [
        p.proxyAddOnAvailable
          ? condition("Available", "True", "ProbeAvailable", `${PROXY_ADDON} add-on is available.`, at)
          : condition("Available", "False", "ProbeUnavailable", `Probe addon unavailable with err: proxy-agent is not ready`, at),
      ],
    },
  };
}

export function namespace(name: string, uid: string, at: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, uid, creationTimestamp: at, labels: { "kubernetes.io/metadata.name": name } },
    spec: { finalizers: ["kubernetes"] },
    status: { phase: "Active" },
  };
}

/** A ManagedClusterSet selecting its members by the exclusive cluster-set label. */
export function managedClusterSet(name: string, uid: string, at: string): KubeObject {
  return {
    apiVersion: "cluster.open-cluster-management.io/v1beta2",
    kind: "ManagedClusterSet",
    metadata: { name, uid, creationTimestamp: at },
    spec: {
      clusterSelector:
        name === "global" ? { selectorType: "LabelSelector", labelSelector: {} } : { selectorType: "ExclusiveClusterSetLabel" },
    },
    status: { conditions: [condition("ClusterSetEmpty", "False", "ClustersSelected", "clusters are selected", at)] },
  };
}

export function multiClusterEngine(uid: string, at: string, version: string): KubeObject {
  return {
    apiVersion: "multicluster.openshift.io/v1",
    kind: "MultiClusterEngine",
    metadata: { name: "multiclusterengine", uid, creationTimestamp: at },
    spec: { targetNamespace: MCE_NAMESPACE, availabilityConfig: "High" },
    status: { phase: "Available", currentVersion: version },
  };
}

/** Everything the hub holds for one managed cluster when it joins: its namespace, ManagedCluster, info and add-ons. */
export function memberObjects(p: HubClusterProfile, uid: () => string, managedCa: string): [KindInfo, KubeObject][] {
  const msaAddOn = proxyAddOn({ ...p, proxyAddOnAvailable: true }, uid());
  msaAddOn.metadata.name = "managed-serviceaccount";
  (msaAddOn.status as { conditions: Condition[] }).conditions[0]!.message = "managed-serviceaccount add-on is available.";
  return [
    [HUB_KINDS.namespace, namespace(p.name, uid(), p.joined)],
    [HUB_KINDS.managedCluster, managedCluster(p, uid(), Buffer.from(managedCa).toString("base64"))],
    [HUB_KINDS.managedClusterInfo, managedClusterInfo(p, uid())],
    [HUB_KINDS.managedClusterAddOn, proxyAddOn(p, uid())],
    [HUB_KINDS.managedClusterAddOn, msaAddOn],
  ];
}

/** The hub Secret the managed-serviceaccount agent writes for a token (MSA token.go buildSecret). */
export function managedServiceAccountSecret(namespace: string, name: string, token: string, ca: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace, labels: { "authentication.open-cluster-management.io/is-managed-serviceaccount": "true" } },
    type: "Opaque",
    data: { token: Buffer.from(token).toString("base64"), "ca.crt": Buffer.from(ca).toString("base64") },
  };
}
