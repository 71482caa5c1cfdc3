import type { KindRef } from "./client";

const ref = (group: string, version: string, kind: string, plural: string, namespaced = false): KindRef => ({
  group,
  version,
  kind,
  plural,
  namespaced,
});

/** Every kind Fleetskew touches, with the RBAC each needs (docs/rbac.md is generated from the same facts). */
export const KINDS = {
  clusterVersion: ref("config.openshift.io", "v1", "ClusterVersion", "clusterversions"),
  clusterOperator: ref("config.openshift.io", "v1", "ClusterOperator", "clusteroperators"),
  infrastructure: ref("config.openshift.io", "v1", "Infrastructure", "infrastructures"),
  /** The singleton `cluster`: its feature set decides gates such as IrreconcilableMachineConfig (docs/openshift.md §25). */
  featureGate: ref("config.openshift.io", "v1", "FeatureGate", "featuregates"),
  machineConfiguration: ref("operator.openshift.io", "v1", "MachineConfiguration", "machineconfigurations"),
  machineSet: ref("machine.openshift.io", "v1beta1", "MachineSet", "machinesets", true),
  machineConfig: ref("machineconfiguration.openshift.io", "v1", "MachineConfig", "machineconfigs"),
  machineConfigPool: ref("machineconfiguration.openshift.io", "v1", "MachineConfigPool", "machineconfigpools"),
  machineConfigNode: ref("machineconfiguration.openshift.io", "v1", "MachineConfigNode", "machineconfignodes"),
  pinnedImageSet: ref("machineconfiguration.openshift.io", "v1", "PinnedImageSet", "pinnedimagesets"),
  machineOSConfig: ref("machineconfiguration.openshift.io", "v1", "MachineOSConfig", "machineosconfigs"),
  machineOSBuild: ref("machineconfiguration.openshift.io", "v1", "MachineOSBuild", "machineosbuilds"),
  /** The registry-less singleton `cluster` (gate NoRegistryClusterInstall, v1 from 4.22; docs/openshift.md §24). */
  internalReleaseImage: ref("machineconfiguration.openshift.io", "v1", "InternalReleaseImage", "internalreleaseimages"),
  /**
   * The OS image streams singleton `cluster` (gate OSStreams): v1 from 4.23, v1alpha1 in 4.22 where
   * TechPreviewNoUpgrade or DevPreviewNoUpgrade turns the gate on (docs/openshift.md §25.1).
   */
  osImageStream: ref("machineconfiguration.openshift.io", "v1", "OSImageStream", "osimagestreams"),
  osImageStreamV1alpha1: ref("machineconfiguration.openshift.io", "v1alpha1", "OSImageStream", "osimagestreams"),
  /** The bare-metal operator's singleton; whether it has an OS download URL decides skew enforcement on BareMetal (docs/openshift.md §16.1). */
  provisioning: ref("metal3.io", "v1alpha1", "Provisioning", "provisionings"),
  /** Only the platform Thanos querier's Route, where firing alerts are read (docs/openshift.md §27.3). */
  route: ref("route.openshift.io", "v1", "Route", "routes", true),
  node: ref("", "v1", "Node", "nodes"),
  configMap: ref("", "v1", "ConfigMap", "configmaps", true),
  pod: ref("", "v1", "Pod", "pods", true),
} as const;

export type KindName = keyof typeof KINDS;

export const groupVersionOf = (k: KindRef) => (k.group ? `${k.group}/${k.version}` : k.version);

/** What Fleetskew reads, and how (the read-only ClusterRole). */
export const READS: { kind: KindName; verbs: ("get" | "list")[]; namespace?: string; names?: string[] }[] = [
  { kind: "clusterVersion", verbs: ["get"], names: ["version"] },
  { kind: "clusterOperator", verbs: ["get"], names: ["machine-config"] },
  { kind: "infrastructure", verbs: ["get"], names: ["cluster"] },
  { kind: "featureGate", verbs: ["get"], names: ["cluster"] },
  { kind: "machineConfiguration", verbs: ["get"], names: ["cluster"] },
  { kind: "machineSet", verbs: ["list"], namespace: "openshift-machine-api" },
  { kind: "configMap", verbs: ["get"], namespace: "openshift-machine-config-operator", names: ["coreos-bootimages"] },
  { kind: "configMap", verbs: ["get"], namespace: "openshift-config-managed", names: ["admin-gates"] },
  { kind: "configMap", verbs: ["get"], namespace: "openshift-config", names: ["admin-acks"] },
  { kind: "machineConfigPool", verbs: ["list"] },
  { kind: "machineConfigNode", verbs: ["list"] },
  { kind: "pinnedImageSet", verbs: ["list"] },
  { kind: "machineConfig", verbs: ["list"] },
  { kind: "node", verbs: ["list"] },
  { kind: "machineOSConfig", verbs: ["list"] },
  { kind: "machineOSBuild", verbs: ["list"] },
  { kind: "provisioning", verbs: ["get"], names: ["provisioning-configuration"] },
  { kind: "internalReleaseImage", verbs: ["get"], names: ["cluster"] },
  { kind: "osImageStream", verbs: ["get"], names: ["cluster"] },
  { kind: "route", verbs: ["get"], namespace: "openshift-monitoring", names: ["thanos-querier"] },
  { kind: "configMap", verbs: ["get"], namespace: "openshift-config-managed", names: ["default-ingress-cert"] },
];

/**
 * What the Thanos querier's kube-rbac-proxy asks of the token before it answers the alerts
 * (openshift/cluster-monitoring-operator assets/thanos-querier/kube-rbac-proxy-web-secret.yaml):
 * `get` on `prometheuses/api` named `k8s` in openshift-monitoring, which `cluster-monitoring-view`
 * grants. Not an API object Fleetskew gets, so kept apart from READS; docs/rbac.md, "Firing alerts".
 */
export const QUERIER_ACCESS = {
  group: "monitoring.coreos.com",
  resource: "prometheuses/api",
  verbs: ["get"],
  namespace: "openshift-monitoring",
  names: ["k8s"],
} as const;
