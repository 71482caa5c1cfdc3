/**
 * The kinds a simulated cluster serves, and from which OpenShift minor release (docs/openshift.md §14:
 * MachineConfigNode, PinnedImageSet, MachineOSConfig and MachineOSBuild are served at v1 from 4.19).
 * metal3.io Provisioning is served on every platform, as on a real cluster with the baremetal
 * capability (the cluster-baremetal-operator's CRD is installed everywhere); only bare-metal
 * clusters have the `provisioning-configuration` object.
 */
export type KindInfo = {
  group: string; // "" for the core group
  version: string;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  /** Has a status subresource: writes to the main resource leave status alone. */
  status: boolean;
  /** First OpenShift 4.x minor that serves this kind (inclusive). */
  sinceMinor?: number;
  /** Last 4.x minor that serves it (inclusive): a version the next release no longer serves. */
  untilMinor?: number;
  /** Served only under these feature sets (a CRD the installer applies for a gate those sets turn on). */
  featureSets?: readonly string[];
};

const k = (info: Omit<KindInfo, "singular"> & { singular?: string }): KindInfo => ({
  ...info,
  singular: info.singular ?? info.kind.toLowerCase(),
});

export const KINDS: KindInfo[] = [
  k({ group: "", version: "v1", kind: "Namespace", plural: "namespaces", namespaced: false, shortNames: ["ns"], status: true }),
  k({ group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false, shortNames: ["no"], status: true }),
  k({ group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true, shortNames: ["cm"], status: false }),
  k({ group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true, shortNames: ["po"], status: true }),
  k({ group: "route.openshift.io", version: "v1", kind: "Route", plural: "routes", namespaced: true, status: true }),
  k({ group: "config.openshift.io", version: "v1", kind: "ClusterVersion", plural: "clusterversions", namespaced: false, status: true }),
  k({
    group: "config.openshift.io",
    version: "v1",
    kind: "ClusterOperator",
    plural: "clusteroperators",
    namespaced: false,
    shortNames: ["co"],
    status: true,
  }),
  k({ group: "config.openshift.io", version: "v1", kind: "Infrastructure", plural: "infrastructures", namespaced: false, status: true }),
  k({ group: "config.openshift.io", version: "v1", kind: "FeatureGate", plural: "featuregates", namespaced: false, status: true }),
  k({
    group: "operator.openshift.io",
    version: "v1",
    kind: "MachineConfiguration",
    plural: "machineconfigurations",
    namespaced: false,
    status: true,
  }),
  k({
    group: "machine.openshift.io",
    version: "v1beta1",
    kind: "MachineSet",
    plural: "machinesets",
    namespaced: true,
    shortNames: ["ms"],
    status: true,
  }),
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "MachineConfig",
    plural: "machineconfigs",
    namespaced: false,
    shortNames: ["mc"],
    status: false,
  }),
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "MachineConfigPool",
    plural: "machineconfigpools",
    namespaced: false,
    shortNames: ["mcp"],
    status: true,
  }),
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "MachineConfigNode",
    plural: "machineconfignodes",
    namespaced: false,
    status: true,
    sinceMinor: 19,
  }),
  // PinnedImageSet has no status subresource in v1 (docs/openshift.md §21.3).
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "PinnedImageSet",
    plural: "pinnedimagesets",
    namespaced: false,
    status: false,
    sinceMinor: 19,
  }),
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "MachineOSConfig",
    plural: "machineosconfigs",
    namespaced: false,
    status: true,
    sinceMinor: 19,
  }),
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "MachineOSBuild",
    plural: "machineosbuilds",
    namespaced: false,
    status: true,
    sinceMinor: 19,
  }),
  // Registry-less clusters (gate NoRegistryClusterInstall): v1 and on by default from 4.22 (docs/openshift.md §24).
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "InternalReleaseImage",
    plural: "internalreleaseimages",
    namespaced: false,
    status: true,
    sinceMinor: 22,
  }),
  /*
   * OSImageStream (gate OSStreams; openshift/api payload-manifests/crds 0000_80_machine-config_01_osimagestreams*):
   * release-4.22 has only v1alpha1, under TechPreviewNoUpgrade/DevPreviewNoUpgrade/CustomNoUpgrade;
   * release-4.23 serves v1 in every feature set (docs/openshift.md §25.1).
   */
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1alpha1",
    kind: "OSImageStream",
    plural: "osimagestreams",
    namespaced: false,
    status: true,
    sinceMinor: 22,
    untilMinor: 22,
    featureSets: ["TechPreviewNoUpgrade", "DevPreviewNoUpgrade"],
  }),
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "OSImageStream",
    plural: "osimagestreams",
    namespaced: false,
    status: true,
    sinceMinor: 23,
  }),
  // The container runtime controller's input (pkg/controller/container-runtime-config); served on every release.
  k({
    group: "machineconfiguration.openshift.io",
    version: "v1",
    kind: "ContainerRuntimeConfig",
    plural: "containerruntimeconfigs",
    namespaced: false,
    status: true,
  }),
  k({ group: "metal3.io", version: "v1alpha1", kind: "Provisioning", plural: "provisionings", namespaced: false, status: true }),
];

export const apiVersionOf = (info: KindInfo) => (info.group ? `${info.group}/${info.version}` : info.version);

/** The kinds a cluster at OpenShift 4.<minor> serves under its feature set. */
export function kindsServedAt(minor: number, featureSet = "Default"): KindInfo[] {
  return KINDS.filter(
    (info) =>
      (info.sinceMinor === undefined || minor >= info.sinceMinor) &&
      (info.untilMinor === undefined || minor <= info.untilMinor) &&
      (info.featureSets === undefined || info.featureSets.includes(featureSet)),
  );
}

/** Kubernetes minor shipped with an OpenShift 4.x minor (4.19 → 1.32). */
export const kubernetesMinorFor = (ocpMinor: number) => ocpMinor + 13;
