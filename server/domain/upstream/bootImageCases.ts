/**
 * Cases transcribed from the MCO's own unit tests (openshift/machine-config-operator, branch
 * release-4.22 at 9027c94cde45): inputs and expected outcomes only, in Fleetskew's terms, each named
 * by its upstream test and case. Run against Fleetskew's predictions (server/domain/upstream/*.test.ts)
 * and the simulated MCO (server/simulator/upstream.test.ts). docs/openshift.md §23 counts them.
 */

type Manager = { resource: string; apiGroup: string; selection: { mode: string; partial?: { machineResourceSelector: { matchLabels: Record<string, string> } } } };
const ms = (mode: string, labels?: Record<string, string>): Manager => ({
  resource: "machinesets",
  apiGroup: "machine.openshift.io",
  selection: labels ? { mode, partial: { machineResourceSelector: { matchLabels: labels } } } : { mode },
});
const cpms = (mode: string): Manager => ({ resource: "controlplanemachinesets", apiGroup: "machine.openshift.io", selection: { mode } });

type History = { state: string; version: string }[];
const completed = (version: string): History => [{ state: "Completed", version }];
/** buildClusterVersionWithMultipleHistory: the first (newest) entry is Partial, the rest Completed. */
const multiple = (...versions: string[]): History => versions.map((version, i) => ({ state: i === 0 ? "Partial" : "Completed", version }));

export type SyncCase = {
  upstream: string;
  platform: string;
  topology?: "SingleReplica";
  /** spec.managedBootImages.machineManagers; undefined: no managedBootImages at all. */
  specManagers?: Manager[];
  specSkew?: { mode: "Manual"; manual: { mode: "OCPVersion"; ocpVersion: string } } | { mode: "None" };
  history: History;
  cpmsGate?: boolean;
  /** undefined: no Provisioning object. */
  provisioningURL?: string;
  expectedManagers: Manager[] | undefined;
  optIn: boolean;
  expectedSkew: { mode: "Automatic"; automatic: { ocpVersion: string } } | { mode: "Manual"; manual: { mode: "OCPVersion"; ocpVersion: string } } | { mode: "None" };
};

const automatic = (ocpVersion: string) => ({ mode: "Automatic" as const, automatic: { ocpVersion } });
const manual = (ocpVersion: string) => ({ mode: "Manual" as const, manual: { mode: "OCPVersion" as const, ocpVersion } });
const NONE = { mode: "None" as const };
const T = "pkg/operator/sync_test.go TestSyncMachineConfiguration";

/** pkg/operator/sync_test.go TestSyncMachineConfiguration: syncManagedBootImagesStatus and syncBootImageSkewEnforcementStatus. */
export const SYNC_MACHINE_CONFIGURATION: SyncCase[] = [
  { upstream: `${T} "AWS platform, no existing config, opt-in expected"`, platform: "AWS", history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "AWS platform, existing enabled config, no opt-in expected"`, platform: "AWS", specManagers: [ms("All")], history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: false, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "AWS platform, existing disabled config, no opt-in expected"`, platform: "AWS", specManagers: [ms("None")], history: completed("4.18.0"), expectedManagers: [ms("None")], optIn: false, expectedSkew: manual("4.18.0") },
  { upstream: `${T} "GCP platform, no existing config, opt-in expected"`, platform: "GCP", history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "GCP platform, existing enabled config, no opt-in expected"`, platform: "GCP", specManagers: [ms("All")], history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: false, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "GCP platform, existing parial config, no opt-in expected"`, platform: "GCP", specManagers: [ms("Partial", { test: "boot" })], history: completed("4.18.0"), expectedManagers: [ms("Partial", { test: "boot" })], optIn: false, expectedSkew: manual("4.18.0") },
  { upstream: `${T} "GCP platform, existing disabled config, no opt-in expected"`, platform: "GCP", specManagers: [ms("None")], history: completed("4.18.0"), expectedManagers: [ms("None")], optIn: false, expectedSkew: manual("4.18.0") },
  { upstream: `${T} "Azure platform, no existing config, opt-in expected"`, platform: "Azure", history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "vsphere platform, no existing config, opt-in expected"`, platform: "VSphere", history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "bare metal platform, unsupported platform, no configuration expected"`, platform: "BareMetal", history: completed("4.18.0"), expectedManagers: undefined, optIn: false, expectedSkew: NONE },
  { upstream: `${T} "vsphere platform, empty list config, no opt-in expected"`, platform: "VSphere", specManagers: [], history: completed("4.18.0"), expectedManagers: [], optIn: false, expectedSkew: manual("4.18.0") },
  { upstream: `${T} "AWS platform, no existing config, default CPMS disabled"`, platform: "AWS", history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("All"), cpms("None")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "GCP platform, no existing config, default CPMS disabled"`, platform: "GCP", history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("All"), cpms("None")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "Azure platform, no existing config, default CPMS disabled"`, platform: "Azure", history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("All"), cpms("None")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "AWS platform, CPMS enabled in spec, MachineSets should still follow platform default (All)"`, platform: "AWS", specManagers: [cpms("All")], history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("All"), cpms("All")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "Azure platform, CPMS enabled in spec, MachineSets should still follow platform default (All)"`, platform: "Azure", specManagers: [cpms("All")], history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("All"), cpms("All")], optIn: true, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "AWS platform, MachineSets enabled in spec, CPMS should remain disabled (no opinion)"`, platform: "AWS", specManagers: [ms("All")], history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("All"), cpms("None")], optIn: false, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "AWS platform, both MachineSets and CPMS enabled in spec"`, platform: "AWS", specManagers: [ms("All"), cpms("All")], history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("All"), cpms("All")], optIn: false, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "AWS platform, MachineSets disabled but CPMS enabled in spec, CPMS opinion reflected"`, platform: "AWS", specManagers: [ms("None"), cpms("All")], history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("None"), cpms("All")], optIn: false, expectedSkew: manual("4.18.0") },
  { upstream: `${T} "AWS platform, MachineSets partially enabled and CPMS enabled in spec, both opinions reflected"`, platform: "AWS", specManagers: [ms("Partial", { test: "boot" }), cpms("All")], history: completed("4.18.0"), cpmsGate: true, expectedManagers: [ms("Partial", { test: "boot" }), cpms("All")], optIn: false, expectedSkew: manual("4.18.0") },
  { upstream: `${T} "AWS platform, empty list config, no opt-in expected"`, platform: "AWS", specManagers: [], history: completed("4.18.0"), cpmsGate: true, expectedManagers: [], optIn: false, expectedSkew: manual("4.18.0") },
  { upstream: `${T} "bare metal platform, unsupported platform, no MachineSet/CPMS configuration expected"`, platform: "BareMetal", history: completed("4.19.0"), expectedManagers: undefined, optIn: false, expectedSkew: NONE },
  { upstream: `${T} "vsphere platform, CPMS updates unsupported, MachineSet configuration expected, no CPMS configuration expected"`, platform: "VSphere", history: completed("4.19.0"), cpmsGate: true, expectedManagers: [ms("All")], optIn: true, expectedSkew: automatic("4.19.0") },
  { upstream: `${T} "AWS platform, boot images enabled, skew enforcement automatic mode expected"`, platform: "AWS", specManagers: [ms("All")], history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: false, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "AWS platform, boot images disabled, skew enforcement manual mode expected"`, platform: "AWS", specManagers: [ms("None")], history: completed("4.17.0"), expectedManagers: [ms("None")], optIn: false, expectedSkew: manual("4.17.0") },
  { upstream: `${T} "AWS platform, spec defines manual mode, status should reflect spec"`, platform: "AWS", specSkew: manual("4.16.0"), history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: manual("4.16.0") },
  { upstream: `${T} "AWS platform, spec defines none mode, status should reflect none"`, platform: "AWS", specSkew: NONE, history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: NONE },
  { upstream: `${T} "GCP platform, boot images enabled, skew enforcement automatic mode expected"`, platform: "GCP", specManagers: [ms("All")], history: completed("4.19.1"), expectedManagers: [ms("All")], optIn: false, expectedSkew: automatic("4.19.1") },
  { upstream: `${T} "BareMetal platform, Provisioning CR absent, skew enforcement None expected"`, platform: "BareMetal", history: completed("4.18.0"), expectedManagers: undefined, optIn: false, expectedSkew: NONE },
  { upstream: `${T} "BareMetal platform, Provisioning CR present with empty URL, skew enforcement None expected"`, platform: "BareMetal", history: completed("4.18.0"), provisioningURL: "", expectedManagers: undefined, optIn: false, expectedSkew: NONE },
  { upstream: `${T} "BareMetal platform, legacy qcow2 path (provisioningOSDownloadURL set), skew enforcement Manual expected"`, platform: "BareMetal", history: completed("4.9.0"), provisioningURL: "https://example.com/rhcos.qcow2", expectedManagers: undefined, optIn: false, expectedSkew: manual("4.9.0") },
  { upstream: `${T} "AWS platform, cluster version with multiple history entries"`, platform: "AWS", specManagers: [ms("All")], history: multiple("4.19.0", "4.18.0", "4.17.0"), expectedManagers: [ms("All")], optIn: false, expectedSkew: automatic("4.17.0") },
  { upstream: `${T} "AWS platform, CI version format should be parsed correctly"`, platform: "AWS", specManagers: [ms("All")], history: completed("4.18.0-0.ci-2024-01-01-000000"), expectedManagers: [ms("All")], optIn: false, expectedSkew: automatic("4.18.0") },
  { upstream: `${T} "SNO cluster, no skew enforcement spec, skew enforcement defaults to None"`, platform: "AWS", topology: "SingleReplica", history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: NONE },
  { upstream: `${T} "SNO cluster, spec defines manual mode, status should reflect spec"`, platform: "AWS", topology: "SingleReplica", specSkew: manual("4.17.0"), history: completed("4.18.0"), expectedManagers: [ms("All")], optIn: true, expectedSkew: manual("4.17.0") },
];

export type GuardCase = {
  upstream: string;
  /** The feature gate; false: nothing is checked. */
  gate?: boolean;
  /** null: no MachineConfiguration. */
  status: null | {
    mode: string;
    automatic?: { ocpVersion?: string; rhcosVersion?: string };
    manual?: { mode: string; ocpVersion?: string; rhcosVersion?: string };
    conditions?: { type: string; status: string; message?: string }[];
  };
  /** Newest first; empty: no ClusterVersion (the docs link says "latest"). */
  history: History;
  message: string | null;
};

const G = "pkg/operator/status_test.go TestCheckBootImageSkewUpgradeableGuard";
const docs = (v: string) => `To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at https://docs.redhat.com/en/documentation/openshift_container_platform/${v}/html/machine_configuration/mco-update-boot-skew-mgmt`;
const ocpBelow = (v: string, d = "4.22") => `Upgrades have been disabled because the cluster is using OCP boot image version ${v}, which is below the minimum required version 4.13.0. ${docs(d)}`;
const rhcosBelow = (v: string, rhel: string) => `Upgrades have been disabled because the cluster is using RHCOS boot image version ${v}(RHEL version: ${rhel}), which is below the minimum required RHEL version 9.2. ${docs("4.22")}`;
const done = [{ type: "BootImageUpdateProgressing", status: "False" }];
/** The status_test.go cases that name a ClusterVersion use buildClusterVersion("4.22.0"), or the long history below. */
const at422 = completed("4.22.0");

/** pkg/operator/status_test.go TestCheckBootImageSkewUpgradeableGuard: checkBootImageSkewUpgradeableGuard. */
export const SKEW_GUARD: GuardCase[] = [
  { upstream: `${G} "feature gate disabled"`, gate: false, status: null, history: at422, message: null },
  { upstream: `${G} "MachineConfiguration not found"`, status: null, history: at422, message: null },
  { upstream: `${G} "mode is None"`, status: { mode: "None" }, history: at422, message: null },
  { upstream: `${G} "mode is unset"`, status: { mode: "" }, history: at422, message: null },
  {
    upstream: `${G} "boot image controller is degraded in Automatic mode"`,
    status: { mode: "Automatic", automatic: { ocpVersion: "4.12.0" }, conditions: [{ type: "BootImageUpdateDegraded", status: "True", message: "failed to update boot images" }] },
    history: at422,
    message: "Upgrades have been disabled due to boot image update failures: Boot image controller is degraded: failed to update boot images",
  },
  { upstream: `${G} "boot image controller is progressing in Automatic mode"`, status: { mode: "Automatic", automatic: { ocpVersion: "4.12.0" }, conditions: [{ type: "BootImageUpdateProgressing", status: "True" }] }, history: at422, message: null },
  { upstream: `${G} "boot image controller hasn't completed first pass in Automatic mode"`, status: { mode: "Automatic", automatic: { ocpVersion: "4.12.0" }, conditions: [] }, history: at422, message: null },
  { upstream: `${G} "mode is Automatic with OCP version within limit"`, status: { mode: "Automatic", automatic: { ocpVersion: "4.17.0" }, conditions: done }, history: at422, message: null },
  {
    upstream: `${G} "mode is Automatic with OCP version below limit"`,
    status: { mode: "Automatic", automatic: { ocpVersion: "4.12.0" }, conditions: done },
    history: multiple("4.22.0", "4.21.0", "4.20.0", "4.19.0", "4.18.0", "4.17.0", "4.16.0", "4.15.0", "4.14.0", "4.13.0", "4.12.0"),
    message: ocpBelow("4.12.0"),
  },
  { upstream: `${G} "mode is Automatic with OCP version below limit and no ClusterVersion"`, status: { mode: "Automatic", automatic: { ocpVersion: "4.12.0" }, conditions: done }, history: [], message: ocpBelow("4.12.0", "latest") },
  { upstream: `${G} "mode is Manual with OCP version within limit"`, status: { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.16.0" } }, history: at422, message: null },
  { upstream: `${G} "mode is Manual with OCP version below limit"`, status: { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.10.0" } }, history: at422, message: ocpBelow("4.10.0") },
  { upstream: `${G} "mode is Automatic with exact minimum OCP version"`, status: { mode: "Automatic", automatic: { ocpVersion: "4.13.0" }, conditions: done }, history: at422, message: null },
  { upstream: `${G} "mode is Automatic with modern RHCOS version within limit"`, status: { mode: "Automatic", automatic: { rhcosVersion: "9.4.20251023-0" }, conditions: done }, history: at422, message: null },
  { upstream: `${G} "mode is Automatic with modern RHCOS version below limit"`, status: { mode: "Automatic", automatic: { rhcosVersion: "9.0.20251023-0" }, conditions: done }, history: at422, message: rhcosBelow("9.0.20251023-0", "9.0") },
  { upstream: `${G} "mode is Automatic with legacy RHCOS version within limit"`, status: { mode: "Automatic", automatic: { rhcosVersion: "416.94.202510081640-0" }, conditions: done }, history: at422, message: null },
  { upstream: `${G} "mode is Automatic with legacy RHCOS version below limit"`, status: { mode: "Automatic", automatic: { rhcosVersion: "411.86.202308081056-0" }, conditions: done }, history: at422, message: rhcosBelow("411.86.202308081056-0", "8.6") },
  { upstream: `${G} "mode is Automatic with exact minimum RHCOS version"`, status: { mode: "Automatic", automatic: { rhcosVersion: "413.92.202402131523-0" }, conditions: done }, history: at422, message: null },
  { upstream: `${G} "mode is Manual with modern RHCOS version within limit"`, status: { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20251023-0" } }, history: at422, message: null },
  { upstream: `${G} "mode is Manual with modern RHCOS version below limit"`, status: { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.1.20251023-0" } }, history: at422, message: rhcosBelow("9.1.20251023-0", "9.1") },
  { upstream: `${G} "mode is Manual with legacy RHCOS version within limit"`, status: { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "416.94.202510081640-0" } }, history: at422, message: null },
  { upstream: `${G} "mode is Manual with legacy RHCOS version below limit"`, status: { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "411.86.202308081056-0" } }, history: at422, message: rhcosBelow("411.86.202308081056-0", "8.6") },
  { upstream: `${G} "mode is manual with exact minimum RHCOS version"`, status: { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "413.92.202402131523-0" } }, history: at422, message: null },
];

const A = "pkg/controller/bootimage/boot_image_controller_test.go TestGetArchFromMachineSet";
const ANNOTATION = "capacity.cluster-autoscaler.kubernetes.io/labels";

/** boot_image_controller_test.go TestGetArchFromMachineSet: getArchFromMachineSet. `arch` null: an error; "control-plane": the MCO's own. */
export const ARCH_FROM_MACHINE_SET: { upstream: string; annotations: Record<string, string>; multiArch: boolean; arch: string | null }[] = [
  { upstream: `${A} "Single architecture label in single-arch cluster"`, annotations: { [ANNOTATION]: "kubernetes.io/arch=amd64" }, multiArch: false, arch: "x86_64" },
  { upstream: `${A} "Single architecture label in multi-arch cluster"`, annotations: { [ANNOTATION]: "kubernetes.io/arch=amd64" }, multiArch: true, arch: "x86_64" },
  { upstream: `${A} "Multiple labels with architecture first"`, annotations: { [ANNOTATION]: "kubernetes.io/arch=amd64,topology.ebs.csi.aws.com/zone=eu-central-1a" }, multiArch: false, arch: "x86_64" },
  { upstream: `${A} "Multiple labels with architecture last"`, annotations: { [ANNOTATION]: "topology.ebs.csi.aws.com/zone=eu-central-1a,kubernetes.io/arch=arm64" }, multiArch: false, arch: "aarch64" },
  { upstream: `${A} "Multiple labels with architecture in middle"`, annotations: { [ANNOTATION]: "topology.ebs.csi.aws.com/zone=eu-central-1a,kubernetes.io/arch=s390x,node.kubernetes.io/instance-type=m5.large" }, multiArch: false, arch: "s390x" },
  { upstream: `${A} "Multiple labels with spaces"`, annotations: { [ANNOTATION]: " topology.ebs.csi.aws.com/zone=eu-central-1a , kubernetes.io/arch=ppc64le , node.kubernetes.io/instance-type=m5.large " }, multiArch: false, arch: "ppc64le" },
  { upstream: `${A} "Invalid architecture"`, annotations: { [ANNOTATION]: "kubernetes.io/arch=invalid-arch" }, multiArch: false, arch: null },
  { upstream: `${A} "No architecture label in annotation"`, annotations: { [ANNOTATION]: "topology.ebs.csi.aws.com/zone=eu-central-1a,node.kubernetes.io/instance-type=m5.large" }, multiArch: false, arch: null },
  { upstream: `${A} "No annotation in single-arch cluster defaults to control plane arch"`, annotations: {}, multiArch: false, arch: "control-plane" },
  { upstream: `${A} "No annotation in multi-arch cluster returns error"`, annotations: {}, multiArch: true, arch: null },
  { upstream: `${A} "ARM64 architecture in multi-arch cluster"`, annotations: { [ANNOTATION]: "kubernetes.io/arch=arm64" }, multiArch: true, arch: "aarch64" },
  { upstream: `${A} "PPC64LE architecture in single-arch cluster"`, annotations: { [ANNOTATION]: "kubernetes.io/arch=ppc64le" }, multiArch: false, arch: "ppc64le" },
  { upstream: `${A} "S390X architecture in multi-arch cluster"`, annotations: { [ANNOTATION]: "kubernetes.io/arch=s390x" }, multiArch: true, arch: "s390x" },
];

type AzureImage = { publisher?: string; offer?: string; sku?: string; version?: string; resourceID?: string; type?: string };
const mp = (publisher: string, offer: string, sku: string, version: string, type: string): AzureImage => ({ publisher, offer, sku, version, resourceID: "", type });
const NOPLAN = "MarketplaceNoPlan";
const PLAN = "MarketplaceWithPlan";
const paid = (publisher: string, product: string) => ({
  hyperVGen1: { publisher, offer: `rh-${product}-worker`, sku: `rh-${product}-worker-gen1`, version: "4.18.2025031114" },
  hyperVGen2: { publisher, offer: `rh-${product}-worker`, sku: `rh-${product}-worker`, version: "4.18.2025031114" },
});

/** The stream TestReconcileAzureProviderSpec uses, in stream-metadata JSON. */
export const AZURE_TEST_STREAM = {
  architectures: {
    x86_64: {
      "rhel-coreos-extensions": {
        marketplace: {
          azure: {
            "no-purchase-plan": {
              hyperVGen1: { offer: "aro4", publisher: "azureopenshift", sku: "aro_419", version: "419.94.20250101" },
              hyperVGen2: { offer: "aro4", publisher: "azureopenshift", sku: "419-v2", version: "419.94.20250101" },
            },
            ocp: paid("redhat", "ocp"),
            opp: paid("redhat", "opp"),
            oke: paid("redhat", "oke"),
            "ocp-emea": paid("redhat-limited", "ocp"),
            "opp-emea": paid("redhat-limited", "opp"),
            "oke-emea": paid("redhat-limited", "oke"),
          },
        },
      },
    },
    aarch64: {
      "rhel-coreos-extensions": {
        marketplace: { azure: { "no-purchase-plan": { hyperVGen2: { offer: "aro4", publisher: "azureopenshift", sku: "419-arm", version: "419.94.20250101" } } } },
      },
    },
  },
};

const Z = "pkg/controller/bootimage/boot_image_controller_test.go TestReconcileAzureProviderSpec";
const current419v2 = mp("azureopenshift", "aro4", "419-v2", "419.94.20250101", NOPLAN);

export type AzureCase = {
  upstream: string;
  arch: string;
  image: AzureImage;
  securityType?: string;
  /** A stream of its own: the marketplace extension, or its Azure part, missing. */
  stream?: "no-marketplace" | "no-azure-marketplace";
  /** "patch" with the image it becomes; "current": nothing to do; "excluded": the MCO leaves it out; "skipped": reconcileSkipped. */
  outcome: "patch" | "current" | "excluded" | "skipped";
  expected?: AzureImage;
};

/** boot_image_controller_test.go TestReconcileAzureProviderSpec: reconcileAzureProviderSpec. */
export const RECONCILE_AZURE: AzureCase[] = [
  { upstream: `${Z} "Legacy Gen1 upload image transitions to marketplace Gen1"`, arch: "x86_64", image: { resourceID: "test-gen1-image" }, outcome: "patch", expected: mp("azureopenshift", "aro4", "aro_419", "419.94.20250101", NOPLAN) },
  { upstream: `${Z} "Legacy Gen2 upload image transitions to marketplace Gen2"`, arch: "x86_64", image: { resourceID: "test-gen2-image" }, outcome: "patch", expected: current419v2 },
  { upstream: `${Z} "Marketplace Gen1 image updates to newer version"`, arch: "x86_64", image: mp("azureopenshift", "aro4", "aro_418", "418.94.20241201", NOPLAN), outcome: "patch", expected: mp("azureopenshift", "aro4", "aro_419", "419.94.20250101", NOPLAN) },
  { upstream: `${Z} "Marketplace Gen2 image updates to newer version"`, arch: "x86_64", image: mp("azureopenshift", "aro4", "418-v2", "418.94.20241201", NOPLAN), outcome: "patch", expected: current419v2 },
  { upstream: `${Z} "ARM64 always uses Gen2"`, arch: "aarch64", image: mp("azureopenshift", "aro4", "aro_418", "418.94.20241201", NOPLAN), outcome: "patch", expected: mp("azureopenshift", "aro4", "419-arm", "419.94.20250101", NOPLAN) },
  { upstream: `${Z} "No update needed - image already current"`, arch: "x86_64", image: current419v2, outcome: "current" },
  { upstream: `${Z} "Skip unsupported architecture ppc64le"`, arch: "ppc64le", image: current419v2, outcome: "excluded" },
  { upstream: `${Z} "Skip unsupported architecture s390x"`, arch: "s390x", image: current419v2, outcome: "excluded" },
  { upstream: `${Z} "Paid OCP Gen1 image updates to newer version"`, arch: "x86_64", image: mp("redhat", "rh-ocp-worker", "rh-ocp-worker-gen1", "4.17.2024121214", PLAN), outcome: "patch", expected: mp("redhat", "rh-ocp-worker", "rh-ocp-worker-gen1", "4.18.2025031114", PLAN) },
  { upstream: `${Z} "Paid OCP Gen2 image updates to newer version"`, arch: "x86_64", image: mp("redhat", "rh-ocp-worker", "rh-ocp-worker", "4.17.2024121214", PLAN), outcome: "patch", expected: mp("redhat", "rh-ocp-worker", "rh-ocp-worker", "4.18.2025031114", PLAN) },
  { upstream: `${Z} "Paid OPP EMEA Gen1 image updates to newer version"`, arch: "x86_64", image: mp("redhat-limited", "rh-opp-worker", "rh-opp-worker-gen1", "4.17.2024121214", PLAN), outcome: "patch", expected: mp("redhat-limited", "rh-opp-worker", "rh-opp-worker-gen1", "4.18.2025031114", PLAN) },
  { upstream: `${Z} "Paid OKE EMEA Gen2 image updates to newer version"`, arch: "x86_64", image: mp("redhat-limited", "rh-oke-worker", "rh-oke-worker", "4.17.2024121214", PLAN), outcome: "patch", expected: mp("redhat-limited", "rh-oke-worker", "rh-oke-worker", "4.18.2025031114", PLAN) },
  { upstream: `${Z} "Paid OCP image already current - no update needed"`, arch: "x86_64", image: mp("redhat", "rh-ocp-worker", "rh-ocp-worker", "4.18.2025031114", PLAN), outcome: "current" },
  { upstream: `${Z} "Error when marketplace extensions are nil"`, arch: "x86_64", image: current419v2, stream: "no-marketplace", outcome: "skipped" },
  { upstream: `${Z} "Error when Azure marketplace is nil"`, arch: "x86_64", image: current419v2, stream: "no-azure-marketplace", outcome: "skipped" },
  { upstream: `${Z} "Skip machineset with ConfidentialVM SecurityType"`, arch: "x86_64", image: current419v2, securityType: "ConfidentialVM", outcome: "excluded" },
  { upstream: `${Z} "Skip machineset with TrustedLaunch SecurityType"`, arch: "x86_64", image: current419v2, securityType: "TrustedLaunch", outcome: "excluded" },
  { upstream: `${Z} "Process machineset with SecurityProfile but empty SecurityType"`, arch: "x86_64", image: mp("azureopenshift", "aro4", "418-v2", "418.94.20241201", NOPLAN), securityType: "", outcome: "patch", expected: current419v2 },
  { upstream: `${Z} "Process machineset with nil SecurityProfile"`, arch: "x86_64", image: mp("azureopenshift", "aro4", "418-v2", "418.94.20241201", NOPLAN), outcome: "patch", expected: current419v2 },
];

const R = "pkg/controller/bootimage/boot_image_controller_test.go TestResetClusterBootImage";

/** boot_image_controller_test.go TestResetClusterBootImage: resetClusterBootImage (GetOCPInstallVersion). `history` null: no ClusterVersion. */
export const RESET_CLUSTER_BOOT_IMAGE: { upstream: string; history: History | null; mode: string; initial: string; expected: string }[] = [
  { upstream: `${R} "resets to oldest completed entry (install version)"`, history: [{ state: "Completed", version: "4.19.0" }, { state: "Completed", version: "4.18.0" }], mode: "Automatic", initial: "4.19.0", expected: "4.18.0" },
  { upstream: `${R} "no-op when mode is not automatic"`, history: completed("4.18.0"), mode: "None", initial: "4.19.0", expected: "4.19.0" },
  { upstream: `${R} "no-op when already at install version"`, history: completed("4.18.0"), mode: "Automatic", initial: "4.18.0", expected: "4.18.0" },
  { upstream: `${R} "falls back to 0.0.0 when history is empty"`, history: [], mode: "Automatic", initial: "4.19.0", expected: "0.0.0" },
  { upstream: `${R} "uses last entry when no completed update exists"`, history: [{ state: "Partial", version: "4.18.0" }], mode: "Automatic", initial: "4.19.0", expected: "4.18.0" },
  { upstream: `${R} "falls back to 0.0.0 when ClusterVersion unavailable"`, history: null, mode: "Automatic", initial: "4.19.0", expected: "0.0.0" },
];

const S = "pkg/controller/bootimage/boot_image_controller_test.go TestIsClusterStable";

/** boot_image_controller_test.go TestIsClusterStable: isClusterStable (a pass runs only when stable). */
export const IS_CLUSTER_STABLE: { upstream: string; history: History; stable: boolean }[] = [
  { upstream: `${S} "empty history - install in progress"`, history: [], stable: false },
  { upstream: `${S} "only partial entry - install in progress"`, history: [{ state: "Partial", version: "4.18.0" }], stable: false },
  { upstream: `${S} "completed entry - stable after initial install"`, history: completed("4.18.0"), stable: true },
  { upstream: `${S} "upgrade in progress"`, history: [{ state: "Partial", version: "4.19.0" }, { state: "Completed", version: "4.18.0" }], stable: false },
  { upstream: `${S} "upgrade complete - stable"`, history: [{ state: "Completed", version: "4.19.0" }, { state: "Completed", version: "4.18.0" }], stable: true },
];
