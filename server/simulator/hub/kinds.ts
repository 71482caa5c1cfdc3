import type { KindInfo } from "../kinds";

/**
 * What a simulated ACM hub serves (docs/acm.md §1–2): the open-cluster-management.io resources a
 * fleet source lists and watches, the two it creates (ClusterPermission, ManagedServiceAccount),
 * core Secrets (where ManagedServiceAccount tokens land) and Namespaces (one per managed cluster),
 * and the MultiClusterEngine that names the namespace of the cluster-proxy user-server.
 */
const k = (info: Omit<KindInfo, "singular">): KindInfo => ({ ...info, singular: info.kind.toLowerCase() });

export const CLUSTER_GROUP = "cluster.open-cluster-management.io";

export const HUB_KINDS = {
  namespace: k({ group: "", version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false, shortNames: ["ns"], status: true }),
  secret: k({ group: "", version: "v1", kind: "Secret", plural: "secrets", namespaced: true, status: false }),
  managedCluster: k({
    group: CLUSTER_GROUP,
    version: "v1",
    kind: "ManagedCluster",
    plural: "managedclusters",
    namespaced: false,
    shortNames: ["mcl", "mcls"],
    status: true,
  }),
  managedClusterSet: k({
    group: CLUSTER_GROUP,
    version: "v1beta2",
    kind: "ManagedClusterSet",
    plural: "managedclustersets",
    namespaced: false,
    shortNames: ["mclset", "mclsets"],
    status: true,
  }),
  managedClusterSetBinding: k({
    group: CLUSTER_GROUP,
    version: "v1beta2",
    kind: "ManagedClusterSetBinding",
    plural: "managedclustersetbindings",
    namespaced: true,
    shortNames: ["mclsetbinding", "mclsetbindings"],
    status: true,
  }),
  managedClusterInfo: k({
    group: "internal.open-cluster-management.io",
    version: "v1beta1",
    kind: "ManagedClusterInfo",
    plural: "managedclusterinfos",
    namespaced: true,
    status: true,
  }),
  managedClusterAddOn: k({
    group: "addon.open-cluster-management.io",
    version: "v1alpha1",
    kind: "ManagedClusterAddOn",
    plural: "managedclusteraddons",
    namespaced: true,
    shortNames: ["mca"],
    status: true,
  }),
  clusterPermission: k({
    group: "rbac.open-cluster-management.io",
    version: "v1alpha1",
    kind: "ClusterPermission",
    plural: "clusterpermissions",
    namespaced: true,
    status: true,
  }),
  managedServiceAccount: k({
    group: "authentication.open-cluster-management.io",
    version: "v1beta1",
    kind: "ManagedServiceAccount",
    plural: "managedserviceaccounts",
    namespaced: true,
    status: true,
  }),
  multiClusterEngine: k({
    group: "multicluster.openshift.io",
    version: "v1",
    kind: "MultiClusterEngine",
    plural: "multiclusterengines",
    namespaced: false,
    shortNames: ["mce"],
    status: true,
  }),
} satisfies Record<string, KindInfo>;

export const HUB_KIND_LIST: KindInfo[] = Object.values(HUB_KINDS);
