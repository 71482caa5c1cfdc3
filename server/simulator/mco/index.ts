import type { SimEc2 } from "../ec2";
import { syncBootImages } from "./bootImageController";
import { syncMachineConfiguration } from "./operator";
import { machineConfigUpgradeable } from "./upgradeable";
import { ocpInstallVersion } from "./version";

/**
 * The simulated Machine Config Operator, written from openshift/machine-config-operator (see each
 * module) and nothing else: one pass of the operator's MachineConfiguration sync, the boot image
 * controller and the operator's Upgradeable condition over a cluster's objects. The reconciler runs
 * it on live simulated clusters; the scenario builders run it once to leave generated clusters as
 * the MCO would have.
 */
type Any = Record<string, any>;

/** What the MCO reads and writes of one cluster. */
export interface ClusterView {
  /** The cluster's release (the MCO's own version). */
  readonly release: string;
  /** The BootImageSkewEnforcement gate and API fields are on. */
  readonly skewEnforcement: boolean;
  /** The AMIs the simulated MCO recognises as published RHCOS AMIs (see bootImageController.ts). */
  readonly publishedAmis: ReadonlySet<string>;
  /** What the simulated cloud's EC2 answers the controller from release-4.23 (../ec2.ts); omitted: the defaults. */
  readonly ec2?: SimEc2;
  /** Whether the cluster serves metal3.io Provisioning (clusters without the baremetal capability do not). */
  readonly servesProvisioning: boolean;
  get(kind: string, name: string, namespace?: string): Any | null;
  list(kind: string, namespace?: string): Any[];
  /** Writes an object (its status too when `status`); a write with identical content changes nothing. */
  put(kind: string, obj: Any, subresource?: "status"): void;
  now(): string;
}

const CONDITIONS = "conditions";

/** The node the MCO's controller runs on decides its architecture: a control-plane node's kubernetes.io/arch. */
function controlPlaneArch(view: ClusterView): string {
  const node = view
    .list("Node")
    .find(
      (n) =>
        "node-role.kubernetes.io/master" in (n.metadata?.labels ?? {}) ||
        "node-role.kubernetes.io/control-plane" in (n.metadata?.labels ?? {}),
    );
  return node?.metadata?.labels?.["kubernetes.io/arch"] ?? "amd64";
}

/**
 * `isBareMetalOnLegacyProvisioningPath` (pkg/operator/sync.go): the Provisioning's OS download URL is
 * set; a missing object is not legacy; when it cannot be read (here: the kind is not served, so
 * there is no informer to sync) the MCO assumes legacy.
 */
function bareMetalLegacy(view: ClusterView): boolean {
  if (!view.servesProvisioning) return true;
  return !!view.get("Provisioning", "provisioning-configuration")?.spec?.provisioningOSDownloadURL;
}

/** The operator's MachineConfiguration sync, then one boot image controller pass over the result. */
export function reconcileMachineConfiguration(view: ClusterView, reason = "BootImageUpdateConfigurationUpdated"): void {
  const mc = view.get("MachineConfiguration", "cluster");
  if (!mc) return;
  const infra = view.get("Infrastructure", "cluster");
  const cv = view.get("ClusterVersion", "version");
  const installVersion = ocpInstallVersion(cv?.status?.history);
  const operator = syncMachineConfiguration({
    release: view.release,
    machineConfiguration: mc,
    infra: infra ?? {},
    installVersion,
    bareMetalLegacyProvisioning: bareMetalLegacy(view),
    skewEnforcement: view.skewEnforcement,
    now: view.now(),
  });
  let next: Any = { ...structuredClone(mc), status: operator.status };
  if (operator.optedInAt)
    next.metadata = {
      ...next.metadata,
      annotations: { ...next.metadata.annotations, "machineconfiguration.openshift.io/boot-image-updates-opted-in-at": operator.optedInAt },
    };

  const pass = syncBootImages(
    {
      release: view.release,
      machineConfiguration: next,
      machineSets: view.list("MachineSet", "openshift-machine-api"),
      configMap: view.get("ConfigMap", "coreos-bootimages", "openshift-machine-config-operator"),
      infra,
      clusterVersion: cv,
      controlPlaneArch: controlPlaneArch(view),
      publishedAmis: view.publishedAmis,
      ec2: view.ec2,
      skewEnforcement: view.skewEnforcement,
      reason,
      now: view.now(),
    },
    installVersion,
  );
  for (const ms of pass.machineSets) view.put("MachineSet", ms);
  if (pass.ran) {
    next = { ...next, status: { ...next.status, [CONDITIONS]: pass.conditions } };
    const record = next.status.bootImageSkewEnforcementStatus;
    if (pass.record && record?.mode === "Automatic") {
      const { action: _action, ...automatic } = pass.record;
      next.status.bootImageSkewEnforcementStatus = { mode: "Automatic", automatic };
    }
  }
  if (operator.optedInAt) view.put("MachineConfiguration", { ...next, status: mc.status });
  view.put("MachineConfiguration", next, "status");
}

/** ClusterOperator machine-config's Upgradeable, as `syncUpgradeableStatus` sets it (transition time kept when the status holds). */
export function reconcileMachineConfigUpgradeable(view: ClusterView): void {
  const co = view.get("ClusterOperator", "machine-config");
  if (!co) return;
  const condition = machineConfigUpgradeable(
    view.release,
    view.skewEnforcement,
    view.get("MachineConfiguration", "cluster"),
    view.get("ClusterVersion", "version")?.status?.history ?? [],
    view.list("MachineConfigPool"),
  );
  const conditions = (co.status?.conditions ?? []) as Any[];
  const old = conditions.find((c) => c.type === "Upgradeable");
  const merged = { ...condition, lastTransitionTime: old && old.status === condition.status ? old.lastTransitionTime : view.now() };
  const next = old ? conditions.map((c) => (c.type === "Upgradeable" ? merged : c)) : [...conditions, merged];
  view.put("ClusterOperator", { ...structuredClone(co), status: { ...co.status, conditions: next } }, "status");
}
