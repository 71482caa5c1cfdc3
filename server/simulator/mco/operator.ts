import { defaultClusterPolicies, mergeClusterPolicies } from "./nodeDisruption";
import { checkBootImagePlatform, enrolsByStatus, type Infrastructure } from "./platform";
import { atLeast } from "./version";

/**
 * The machine-config operator's sync of MachineConfiguration/cluster (pkg/operator/sync.go
 * `syncMachineConfiguration` and the functions it calls, release-4.22; earlier lines where they
 * differ). Pure: returns the status (and opt-in annotation) the operator would write.
 */
type Any = Record<string, any>;

export type OperatorInputs = {
  release: string;
  machineConfiguration: Any;
  infra: Infrastructure & { status?: { controlPlaneTopology?: string } };
  /** GetOCPInstallVersion of the cluster's ClusterVersion. */
  installVersion: string;
  /** `isBareMetalOnLegacyProvisioningPath`: the Provisioning has an OS download URL, or cannot be read. */
  bareMetalLegacyProvisioning: boolean;
  /** The BootImageSkewEnforcement gate and API fields (4.22 by default; earlier on preview feature sets). */
  skewEnforcement: boolean;
  /** The ManagedBootImagesCPMS gate (Default from 4.22); omitted: by release. */
  cpmsGate?: boolean;
  now: string;
};

export type OperatorResult = { status: Any; optedInAt: string | null };

const MACHINESETS = { resource: "machinesets", apiGroup: "machine.openshift.io" };
const isMachineSets = (m: Any) => m.resource === "machinesets" && m.apiGroup === "machine.openshift.io";
const isCPMS = (m: Any) => m.resource === "controlplanemachinesets" && m.apiGroup === "machine.openshift.io";

/** `apihelpers.MergeMachineManager`: replaces the entry for the same resource and group, else appends. */
function mergeManager(managers: Any[], next: Any): Any[] {
  const same = (m: Any) => m.resource === next.resource && m.apiGroup === next.apiGroup;
  return managers.some(same) ? managers.map((m) => (same(m) ? next : m)) : [...managers, next];
}

/**
 * `syncManagedBootImagesStatus` (4.21 on): an explicitly empty spec list is copied as it is (the
 * legacy full opt-out); otherwise the admin's MachineSet manager, else All on a default-on platform,
 * else None, merged into the status keeping other managers; the ControlPlaneMachineSet manager the
 * admin's or None. Returns whether this was a default opt-in (status empty, or MachineSets None).
 */
function syncManagedBootImagesStatus(inputs: OperatorInputs, status: Any, enabledByDefault: boolean, cpms: boolean): boolean {
  const specManagers = inputs.machineConfiguration.spec?.managedBootImages?.machineManagers as Any[] | undefined;
  if (Array.isArray(specManagers) && specManagers.length === 0) {
    status.managedBootImagesStatus = structuredClone(inputs.machineConfiguration.spec.managedBootImages);
    return false;
  }
  const current = (inputs.machineConfiguration.status?.managedBootImagesStatus?.machineManagers as Any[] | undefined) ?? null;
  let optIn = false;
  let machineSets: Any = { ...MACHINESETS, selection: { mode: "None" } };
  const admin = (specManagers ?? []).find(isMachineSets);
  if (admin) machineSets = structuredClone(admin);
  else if (enabledByDefault) {
    optIn = current === null || current.some((m) => isMachineSets(m) && m.selection?.mode === "None");
    machineSets = { ...MACHINESETS, selection: { mode: "All" } };
  }
  let managers = mergeManager((status.managedBootImagesStatus?.machineManagers as Any[] | undefined) ?? [], machineSets);
  if (cpms && (inputs.cpmsGate ?? atLeast(inputs.release, 22))) {
    const adminCpms = (specManagers ?? []).find(isCPMS);
    managers = mergeManager(
      managers,
      adminCpms
        ? structuredClone(adminCpms)
        : { resource: "controlplanemachinesets", apiGroup: "machine.openshift.io", selection: { mode: "None" } },
    );
  }
  status.managedBootImagesStatus = { machineManagers: managers };
  return optIn;
}

/**
 * 4.19–4.20: a non-nil spec list is copied to status as it is; without one, default-on platforms get
 * MachineSets All and others nothing.
 */
function syncManagedBootImagesStatusLegacy(inputs: OperatorInputs, status: Any, enabledByDefault: boolean): boolean {
  const spec = inputs.machineConfiguration.spec?.managedBootImages;
  if (Array.isArray(spec?.machineManagers)) {
    status.managedBootImagesStatus = structuredClone(spec);
    return false;
  }
  if (!enabledByDefault) return false;
  const optIn = !inputs.machineConfiguration.status?.managedBootImagesStatus?.machineManagers;
  status.managedBootImagesStatus = { machineManagers: [{ ...MACHINESETS, selection: { mode: "All" } }] };
  return optIn;
}

/**
 * `syncBootImageSkewEnforcementStatus`, first match wins: the admin's spec (Manual mirrored, else
 * None); BareMetal off the legacy provisioning path → None; single-node → None; a supported platform
 * whose MachineSets are managed All → Automatic, seeded with the install version on entry and left
 * to the boot image controller after; anything else → Manual with the install version.
 */
function syncBootImageSkewEnforcementStatus(inputs: OperatorInputs, status: Any, supported: boolean): void {
  const spec = inputs.machineConfiguration.spec?.bootImageSkewEnforcement;
  if (spec && Object.keys(spec).length > 0) {
    status.bootImageSkewEnforcementStatus =
      spec.mode === "Manual" ? { mode: "Manual", manual: structuredClone(spec.manual) } : { mode: "None" };
    return;
  }
  const platform = inputs.infra?.status?.platformStatus?.type;
  if (platform === "BareMetal" && !inputs.bareMetalLegacyProvisioning) {
    status.bootImageSkewEnforcementStatus = { mode: "None" };
    return;
  }
  if (inputs.infra?.status?.controlPlaneTopology === "SingleReplica") {
    status.bootImageSkewEnforcementStatus = { mode: "None" };
    return;
  }
  const managers = (status.managedBootImagesStatus?.machineManagers ?? []) as Any[];
  if (supported && managers.some((m) => isMachineSets(m) && m.selection?.mode === "All")) {
    const previous = inputs.machineConfiguration.status?.bootImageSkewEnforcementStatus;
    if (status.bootImageSkewEnforcementStatus?.mode !== "Automatic" || !previous || Object.keys(previous).length === 0)
      status.bootImageSkewEnforcementStatus = { mode: "Automatic", automatic: { ocpVersion: inputs.installVersion } };
    return;
  }
  status.bootImageSkewEnforcementStatus = { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: inputs.installVersion } };
}

export function syncMachineConfiguration(inputs: OperatorInputs): OperatorResult {
  const status: Any = structuredClone(inputs.machineConfiguration.status ?? {});
  const defaults = defaultClusterPolicies(inputs.release);
  if (defaults)
    status.nodeDisruptionPolicyStatus = {
      clusterPolicies: mergeClusterPolicies(defaults, inputs.machineConfiguration.spec?.nodeDisruptionPolicy),
    };
  const { supported, cpmsSupported, enabledByDefault } = checkBootImagePlatform(inputs.infra, inputs.release);
  let optIn = false;
  if (supported && enrolsByStatus(inputs.release))
    optIn = atLeast(inputs.release, 21)
      ? syncManagedBootImagesStatus(inputs, status, enabledByDefault, cpmsSupported)
      : syncManagedBootImagesStatusLegacy(inputs, status, enabledByDefault);
  if (inputs.skewEnforcement) syncBootImageSkewEnforcementStatus(inputs, status, supported);
  status.observedGeneration = inputs.machineConfiguration.metadata?.generation ?? status.observedGeneration;
  return { status, optedInAt: optIn ? inputs.now : null };
}
