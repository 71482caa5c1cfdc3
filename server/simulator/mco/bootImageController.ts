import ALLOWED_AMIS_RELEASE_4_22 from "../../../data/mco/allowed-amis-release-4.22.json";
import type { SimEc2 } from "../ec2";
import { labelSelectorMatches, type LabelSelector } from "../labels";
import { AwsReconcileError, awsTarget423, cmpRHCOSVersion } from "./aws";
import { checkBootImagePlatform, enrolsByStatus, type Infrastructure } from "./platform";
import { atLeast, parseGeneric, xyz } from "./version";

/**
 * The MCO's boot image controller for MAPI MachineSets (openshift/machine-config-operator
 * pkg/controller/bootimage: boot_image_controller.go, ms_helpers.go, platform_helpers.go; release-4.22,
 * with the earlier lines' condition wording; AWS by release-4.23's aws_helpers.go from 4.23, ./aws.ts). One call is one `syncAll` pass over a cluster's objects;
 * it returns what the controller writes. Pure: no clock, no store.
 */
type Any = Record<string, any>;
export type Condition = { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string };

export type ControllerInputs = {
  /** The cluster's release: the MCO's own version. */
  release: string;
  machineConfiguration: Any;
  machineSets: Any[];
  configMap: Any | null;
  infra: Infrastructure | null;
  clusterVersion: Any | null;
  /** kubernetes.io/arch of the node the controller runs on (a control-plane node), Go name. */
  controlPlaneArch: string;
  /**
   * AMIs Red Hat owns in the simulated cloud: release-4.23 and later ask EC2 for the AMI's owner
   * (aws_helpers.go `detectAMIKind`). release-4.22 decides by its compiled list instead (`ALLOWED_AMIS`).
   */
  publishedAmis: ReadonlySet<string>;
  /** What the simulated cloud's EC2 answers release-4.23 and later (../ec2.ts); omitted: the defaults there. */
  ec2?: SimEc2;
  /** The BootImageSkewEnforcement feature gate (on by default from 4.22). */
  skewEnforcement: boolean;
  /** The event that triggered the pass; it becomes the conditions' reason. */
  reason: string;
  now: string;
};

export type MachineSetOutcome = {
  name: string;
  /** patched: a new image was written; current: nothing to do; skipped: reconcileSkipped; excluded: not counted. */
  outcome: "patched" | "current" | "skipped" | "excluded" | "error";
  error?: string;
};

export type ControllerResult = {
  /** False when the pass was deferred (install or upgrade in progress: `isClusterStable`). */
  ran: boolean;
  machineSets: Any[];
  outcomes: MachineSetOutcome[];
  conditions: Condition[];
  /** What happens to status.bootImageSkewEnforcementStatus.automatic in Automatic mode. */
  record:
    | { action: "update" | "reset"; ocpVersion: string; rhcosVersion?: undefined }
    | { action: "update"; rhcosVersion: string; ocpVersion?: undefined }
    | null;
  /**
   * The controller panicked during the pass (the MCO's own nil pointer dereference). What it wrote
   * before stays: Progressing True with the count so far, and the MachineSets it had patched; no
   * Degraded message and no record.
   */
  crashed?: string;
};

const ARCH_ANNOTATION = "capacity.cluster-autoscaler.kubernetes.io/labels";
const ARCH_LABEL = "kubernetes.io/arch=";
const RPM: Record<string, string> = { amd64: "x86_64", arm64: "aarch64", ppc64le: "ppc64le", s390x: "s390x" };

class SyncError extends Error {}

/** getArchFromMachineSet (ms_helpers.go): the RPM architecture, "skip", or a SyncError. */
export function archOf(ms: Any, clusterVersion: Any | null, controlPlaneArch: string): string | "skip" {
  const annotation: string | undefined = ms.metadata?.annotations?.[ARCH_ANNOTATION];
  if (annotation === undefined) {
    if (clusterVersion?.status?.desired?.architecture === "Multi") return "skip";
    return RPM[controlPlaneArch] ?? controlPlaneArch;
  }
  for (const part of annotation.split(",")) {
    const label = part.trim();
    if (label.startsWith(ARCH_LABEL)) {
      const value = label.slice(ARCH_LABEL.length);
      if (RPM[value]) return RPM[value]!;
      throw new SyncError(`failed to fetch arch during machineset sync: invalid architecture value found in annotation: ${value}`);
    }
  }
  throw new SyncError(`failed to fetch arch during machineset sync: kubernetes.io/arch label not found in annotation: ${annotation}`);
}

/** `rhcosVersion`: the RHCOS release of the marketplace AMI the MachineSet is on or gets (release-4.23 on). */
type Reconciled = { patch: ((value: Any) => void) | null; skipped: boolean; excluded?: boolean; rhcosVersion?: string };
type PassInputs = ControllerInputs & { stream: Any | null };
const skipped: Reconciled = { patch: null, skipped: true };
const nothing: Reconciled = { patch: null, skipped: false };
/** Returned without a patch and not skipped, on purpose: not counted as skipped. */
const left: Reconciled = { patch: null, skipped: false, excluded: true };
const reconcileError = (name: string, message: string) => new SyncError(`failed to reconcile machineset ${name}, err: ${message}`);
/** stream-metadata-go `GetArchitecture` (stream_utils.go). */
const noArchitecture = (stream: Any | null, arch: string) => `stream:${stream?.stream ?? ""} does not have architecture '${arch}'`;
/** Where the MCO's code dereferences a nil pointer: the controller panics and the pass writes nothing. */
class ControllerPanic extends Error {}

/** ami.go `AllowedAMIs` as release-4.22 compiles it in (data/mco, with its source commit). */
const ALLOWED_AMIS: ReadonlySet<string> = new Set(ALLOWED_AMIS_RELEASE_4_22.amis);

/**
 * reconcileAWSProviderSpec: release-4.22 checks the region, ami.id and AllowedAMIs; from 4.23 ami.id,
 * then EC2 describes the AMI and its owner decides (./aws.ts): Red Hat's → the stream's AMI,
 * AWS Marketplace and ROSA → the product's newest AMI at the stream's RHEL version or older, with its
 * RHCOS release for the record (also when the MachineSet is already on it), anything else skipped;
 * credentials and EC2 failures are errors.
 */
function reconcileAWS(input: PassInputs, ms: Any, value: Any, arch: string): Reconciled {
  const current: string | undefined = value.ami?.id ?? undefined;
  let target: string | undefined;
  let rhcosVersion = "";
  if (atLeast(input.release, 23)) {
    let found;
    try {
      found = awsTarget423(value, arch, input.stream, input.ec2, input.publishedAmis, ms.metadata.name, (a) =>
        noArchitecture(input.stream, a),
      );
    } catch (error) {
      if (error instanceof AwsReconcileError) throw reconcileError(ms.metadata.name, error.message);
      throw error;
    }
    if (found === "skip") return skipped;
    ({ ami: target, rhcosVersion } = found);
  } else {
    const region = value.placement?.region ?? "";
    target = input.stream?.architectures?.[arch]?.images?.aws?.regions?.[region]?.image;
    if (!target) return skipped;
    if (current === undefined) return skipped;
    if (current === target) return nothing;
    if (!ALLOWED_AMIS.has(current)) return skipped;
  }
  const version = rhcosVersion ? { rhcosVersion } : {};
  if (current === target) return { ...nothing, ...version };
  // Only one of ID, ARN or Filters may be set: the new AMI replaces the whole reference.
  return { patch: (v) => (v.ami = { id: target }), skipped: false, ...version };
}

/** reconcileGCPProviderSpec. */
function reconcileGCP(input: PassInputs, ms: Any, value: Any, arch: string): Reconciled {
  const gcp = input.stream?.architectures?.[arch]?.images?.gcp;
  // `streamData.Architectures[arch].Images.Gcp.Project` with Gcp nil: a nil pointer dereference.
  if (!gcp) throw new ControllerPanic("reconcileGCPProviderSpec: invalid memory address or nil pointer dereference");
  const target = `projects/${gcp.project}/global/images/${gcp.name}`;
  let patch = false;
  for (const disk of (value.disks ?? []) as Any[]) {
    if (!disk.boot || disk.image === target) continue;
    if (!String(disk.image ?? "").startsWith("projects/rhcos-cloud/global/images")) return skipped;
    patch = true;
  }
  return patch ? { patch: (v) => (v.disks as Any[]).filter((d) => d.boot).forEach((d) => (d.image = target)), skipped: false } : nothing;
}

const AZURE_VARIANTS: Record<string, string> = {
  "redhat/rh-ocp-worker": "ocp",
  "redhat/rh-opp-worker": "opp",
  "redhat/rh-oke-worker": "oke",
  "redhat-limited/rh-ocp-worker": "ocp-emea",
  "redhat-limited/rh-opp-worker": "opp-emea",
  "redhat-limited/rh-oke-worker": "oke-emea",
};

/** reconcileAzureProviderSpec with determineAzureVariant and getTargetImageFromStream. */
function reconcileAzure(input: PassInputs, ms: Any, value: Any, arch: string): Reconciled {
  if (arch === "ppc64le" || arch === "s390x") return left;
  if (value.securityProfile?.settings?.securityType) return left;
  const image = value.image ?? {};
  const legacy = !!image.resourceID;
  const variant = legacy || image.publisher === "azureopenshift" ? "no-purchase-plan" : AZURE_VARIANTS[`${image.publisher}/${image.offer}`];
  if (!variant) throw reconcileError(ms.metadata.name, "could not determine azure marketplace variant, cannot update boot images");
  const streamArch = input.stream?.architectures?.[arch];
  if (!streamArch) throw reconcileError(ms.metadata.name, noArchitecture(input.stream, arch));
  // `streamArch.RHELCoreOSExtensions.Marketplace` with no extensions: a nil pointer dereference.
  if (!streamArch["rhel-coreos-extensions"])
    throw new ControllerPanic("reconcileAzureProviderSpec: invalid memory address or nil pointer dereference");
  const marketplace = streamArch["rhel-coreos-extensions"]?.marketplace;
  if (!marketplace || !marketplace.azure) return skipped;
  const set = marketplace.azure[variant];
  if (!set) throw reconcileError(ms.metadata.name, `no Azure marketplace images available for variant ${variant}`);
  const gen2 = legacy
    ? String(image.resourceID).includes("gen2")
    : image.type === "MarketplaceNoPlan"
      ? String(image.sku ?? "").includes("v2") || arch === "aarch64"
      : !String(image.sku ?? "").includes("gen1");
  const target = set[gen2 ? "hyperVGen2" : "hyperVGen1"];
  if (!target)
    throw reconcileError(ms.metadata.name, `no ${gen2 ? "Gen2" : "Gen1"} Azure marketplace image available for architecture ${arch}`);
  const next = {
    offer: target.offer,
    publisher: target.publisher,
    resourceID: "",
    sku: target.sku,
    version: target.version,
    type: variant === "no-purchase-plan" ? "MarketplaceNoPlan" : "MarketplaceWithPlan",
  };
  const same = (["offer", "publisher", "resourceID", "sku", "version", "type"] as const).every((k) => (image[k] ?? "") === next[k]);
  return same ? nothing : { patch: (v) => (v.image = next), skipped: false };
}

/** Go's path.Clean (the resource pools createNewVMTemplate compares). */
function goClean(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const parts: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length && parts[parts.length - 1] !== "..") parts.pop();
    else if (part !== ".." || !rooted) parts.push(part);
  }
  return (rooted ? "/" : "") + parts.join("/") || (rooted ? "/" : ".");
}

/**
 * reconcileVSphereProviderSpec (platform_helpers.go) and createNewVMTemplate (vsphere_helpers.go),
 * release-4.22 and release-4.23: Infrastructure spec.platformSpec.vsphere unset → nothing, before
 * anything else; the stream's architecture and `vmware` artifact; the kube-system/vsphere-creds
 * Secret (every simulated vSphere cluster has one: the simulator does not serve Secrets); then the
 * workspace must match a vCenter and a failure domain (server, datacenter, datastore, vmGroup,
 * resource pool after path.Clean), else an error. The template named after the failure domain is
 * refreshed in place: the MachineSet itself does not change.
 */
function reconcileVSphere(input: PassInputs, ms: Any, value: Any, arch: string): Reconciled {
  const vsphere = (input.infra as Any | null)?.spec?.platformSpec?.vsphere;
  if (vsphere == null) return nothing;
  const release = input.stream?.architectures?.[arch]?.artifacts?.vmware?.release;
  if (!input.stream?.architectures?.[arch]) throw reconcileError(ms.metadata.name, noArchitecture(input.stream, arch));
  if (!release) throw reconcileError(ms.metadata.name, `${input.stream?.stream ?? ""}/${arch}: artifact 'vmware' not found`);
  const ws = value.workspace;
  if (ws == null) throw new ControllerPanic("createNewVMTemplate: invalid memory address or nil pointer dereference");
  const field = (v: unknown) => (typeof v === "string" ? v : "");
  for (const vcenter of (vsphere.vcenters ?? []) as Any[]) {
    if (field(vcenter.server) !== field(ws.server)) continue;
    for (const fd of (vsphere.failureDomains ?? []) as Any[]) {
      const vmGroup = field(fd.zoneAffinity?.hostGroup?.vmGroup);
      if (
        field(ws.datacenter) !== field(fd.topology?.datacenter) ||
        field(ws.datastore) !== field(fd.topology?.datastore) ||
        field(vcenter.server) !== field(fd.server) ||
        field(ws.vmGroup) !== vmGroup ||
        goClean(field(ws.resourcePool)) !== goClean(field(fd.topology?.resourcePool))
      )
        continue;
      return nothing;
    }
  }
  const details =
    `server: ${field(ws.server)}, datacenter: ${field(ws.datacenter)}, datastore: ${field(ws.datastore)}, resourcePool: ${field(ws.resourcePool)}` +
    (field(ws.vmGroup) ? `, vmGroup: ${field(ws.vmGroup)}` : "");
  throw reconcileError(
    ms.metadata.name,
    `providerSpec workspace (${details}) does not match any vCenter/failure domain in the Infrastructure object`,
  );
}

/** syncMAPIMachineSet: owner references skip; other streams and Windows are excluded; then the platform's rule. */
function syncMachineSet(input: PassInputs, ms: Any): { outcome: MachineSetOutcome; next: Any | null; rhcosVersion?: string } {
  const name: string = ms.metadata.name;
  const result = (outcome: MachineSetOutcome["outcome"], error?: string) => ({
    outcome: { name, outcome, ...(error ? { error } : {}) },
    next: null,
  });
  if ((ms.metadata.ownerReferences ?? []).length > 0) return result("skipped");
  const stream = ms.metadata.labels?.["machineconfiguration.openshift.io/osstream"];
  if (stream !== undefined && stream !== "rhel-9") return result("excluded");
  if (ms.spec?.template?.metadata?.labels?.["machine.openshift.io/os-id"] === "Windows") return result("excluded");
  try {
    const arch = archOf(ms, input.clusterVersion, input.controlPlaneArch);
    if (arch === "skip") return result("skipped");
    const value = ms.spec?.template?.spec?.providerSpec?.value;
    if (!value) throw reconcileError(name, "providerSpec field was empty");
    if (!input.stream) throw reconcileError(name, "failed to parse CoreOS stream metadata");
    const platform = input.infra?.status?.platformStatus?.type;
    const reconcile =
      platform === "AWS"
        ? reconcileAWS
        : platform === "GCP"
          ? reconcileGCP
          : platform === "Azure"
            ? reconcileAzure
            : platform === "VSphere"
              ? reconcileVSphere
              : null;
    if (!reconcile) return result("excluded");
    const r = reconcile(input, ms, value, arch);
    if (r.skipped) return result("skipped");
    if (r.excluded) return result("excluded");
    const version = r.rhcosVersion ? { rhcosVersion: r.rhcosVersion } : {};
    if (!r.patch) return { ...result("current"), ...version };
    const next = structuredClone(ms);
    r.patch(next.spec.template.spec.providerSpec.value);
    return { outcome: { name, outcome: "patched" }, next, ...version };
  } catch (error) {
    if (error instanceof SyncError) return result("error", `error syncing MAPI MachineSet ${name}: ${error.message}`);
    throw error;
  }
}

/** k8s.io/apimachinery/pkg/util/errors aggregate's Error(): one error alone, several deduplicated in brackets. */
function aggregate(errors: string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

type Stats = { total: number; inProgress: number; skipped: number; errored: number };

/** The condition messages of each release line (updateConditions / getProgressingStatusMessage). */
function messages(release: string, mapi: Stats): { progressing: string; degraded: string } {
  const zero: Stats = { total: 0, inProgress: 0, skipped: 0, errored: 0 };
  const reconciled = (s: Stats, name: string) =>
    atLeast(release, 22) && s.skipped > 0
      ? `Reconciled ${s.inProgress - s.skipped} of ${s.total} ${name} (${s.skipped} skipped)`
      : `Reconciled ${s.inProgress} of ${s.total} ${name}`;
  if (atLeast(release, 22))
    return {
      progressing: [
        reconciled(mapi, "MAPI MachineSets"),
        reconciled(zero, "ControlPlaneMachineSets"),
        reconciled(zero, "CAPI MachineSets"),
        reconciled(zero, "CAPI MachineDeployments"),
      ].join(" | "),
      degraded: `${mapi.errored} Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments`,
    };
  if (atLeast(release, 21))
    return {
      progressing: `${reconciled(mapi, "MAPI MachineSets")} | Reconciled 0 of 0 ControlPlaneMachineSets | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments`,
      degraded: `${mapi.errored} Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 CAPI MachineDeployments`,
    };
  return {
    progressing: `${reconciled(mapi, "MAPI MachineSets")} | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments`,
    degraded: `${mapi.errored} Degraded MAPI MachineSets | 0 Degraded CAPI MachineSets | 0 CAPI MachineDeployments`,
  };
}

/**
 * A pass that panicked on a MachineSet. `syncMAPIMachineSets` (ms_helpers.go, release-4.22) writes
 * BootImageUpdateProgressing True before it walks the MachineSets and again after each one
 * (`updateConditions`, starting from `getDefaultConditions` when there are none), and patches as it
 * goes; the panic ends the pass there, so Progressing stays True with the count so far — which is
 * what makes `checkBootImageControllerReady` skip the skew check — and nothing else is written.
 */
function crashedPass(input: ControllerInputs, total: number, done: ReturnType<typeof syncMachineSet>[], crashed: string): ControllerResult {
  const stats: Stats = {
    total,
    inProgress: done.filter((o) => o.outcome.outcome !== "error").length,
    skipped: atLeast(input.release, 22) ? done.filter((o) => o.outcome.outcome === "skipped").length : 0,
    errored: done.filter((o) => o.outcome.outcome === "error").length,
  };
  const zero = messages(input.release, { total: 0, inProgress: 0, skipped: 0, errored: 0 });
  let conditions = (input.machineConfiguration.status?.conditions as Condition[] | undefined) ?? [];
  if (conditions.length === 0)
    conditions = [
      { type: "BootImageUpdateProgressing", status: "False", reason: "NA", message: zero.progressing, lastTransitionTime: input.now },
      {
        type: "BootImageUpdateDegraded",
        status: "False",
        reason: "NA",
        // getDefaultConditions' own text, which leaves "Degraded" out of the last segment.
        message: zero.degraded.replace(/0 Degraded CAPI MachineDeployments$/, "0 CAPI MachineDeployments"),
        lastTransitionTime: input.now,
      },
    ];
  conditions = setCondition(
    conditions,
    { type: "BootImageUpdateProgressing", status: "True", reason: input.reason, message: messages(input.release, stats).progressing },
    input.now,
  );
  return {
    ran: true,
    machineSets: done.flatMap((o) => (o.next ? [o.next] : [])),
    outcomes: done.map((o) => o.outcome),
    conditions,
    record: null,
    crashed,
  };
}

function setCondition(conditions: Condition[], next: Condition, now: string): Condition[] {
  const old = conditions.find((c) => c.type === next.type);
  const changed = !old || old.status !== next.status || old.message !== next.message || old.reason !== next.reason;
  const merged = { ...next, lastTransitionTime: changed ? now : old.lastTransitionTime };
  return old ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
}

/** The machine managers the controller enrols by: managedBootImagesStatus from 4.19, the spec before. */
export function enrollingManagers(release: string, machineConfiguration: Any): Any[] {
  const source = enrolsByStatus(release)
    ? machineConfiguration.status?.managedBootImagesStatus
    : machineConfiguration.spec?.managedBootImages;
  return (source?.machineManagers ?? []) as Any[];
}

/** `getMachineResourceSelectorFromMachineManagers` then the lister: the MachineSets enrolled. */
function enrolled(managers: Any[], machineSets: Any[]): Any[] {
  const manager = managers.find((m) => m.apiGroup === "machine.openshift.io" && m.resource === "machinesets");
  const mode = manager?.selection?.mode;
  if (mode === "All") return machineSets;
  if (mode === "Partial")
    return machineSets.filter((ms) =>
      labelSelectorMatches(manager?.selection?.partial?.machineResourceSelector as LabelSelector, ms.metadata?.labels),
    );
  return [];
}

/**
 * `syncAll`: nothing while an install or upgrade is in progress (`isClusterStable`: the newest history
 * entry is Completed; 4.20 on), then `syncMAPIMachineSets` — every enrolled MachineSet, the
 * Progressing and Degraded conditions, and with the skew enforcement gate on: a clean pass records the
 * coreos-bootimages releaseVersion (`updateClusterBootImage`), one with skipped MachineSets and no
 * errors resets the record to the install version (`resetClusterBootImage`), errors change nothing.
 */
export function syncBootImages(input: ControllerInputs, installVersion: string): ControllerResult {
  const none: ControllerResult = {
    ran: false,
    machineSets: [],
    outcomes: [],
    conditions: input.machineConfiguration.status?.conditions ?? [],
    record: null,
  };
  if (!checkBootImagePlatform(input.infra, input.release).supported) return none;
  const history = (input.clusterVersion?.status?.history ?? []) as Any[];
  if (atLeast(input.release, 20) && history[0]?.state !== "Completed") return none;
  let stream: Any | null = null;
  try {
    stream = input.configMap?.data?.stream ? JSON.parse(input.configMap.data.stream) : null;
  } catch {
    stream = null;
  }
  const sets = enrolled(enrollingManagers(input.release, input.machineConfiguration), input.machineSets);
  const outcomes: ReturnType<typeof syncMachineSet>[] = [];
  for (const ms of sets) {
    try {
      outcomes.push(syncMachineSet({ ...input, stream }, ms));
    } catch (error) {
      if (!(error instanceof ControllerPanic)) throw error;
      return crashedPass(input, sets.length, outcomes, `panic: runtime error: ${error.message}`);
    }
  }
  const stats: Stats = {
    total: sets.length,
    inProgress: outcomes.filter((o) => o.outcome.outcome !== "error").length,
    // Before 4.22 nothing is counted as skipped: the MCO returned without error and moved on.
    skipped: atLeast(input.release, 22) ? outcomes.filter((o) => o.outcome.outcome === "skipped").length : 0,
    errored: outcomes.filter((o) => o.outcome.outcome === "error").length,
  };
  const errors = outcomes.flatMap((o) => (o.outcome.error ? [o.outcome.error] : []));
  const text = messages(input.release, stats);
  let conditions = (input.machineConfiguration.status?.conditions as Condition[] | undefined) ?? [];
  conditions = setCondition(
    conditions,
    { type: "BootImageUpdateProgressing", status: "False", reason: input.reason, message: text.progressing },
    input.now,
  );
  conditions = setCondition(
    conditions,
    {
      type: "BootImageUpdateDegraded",
      status: errors.length ? "True" : "False",
      reason: input.reason,
      message: errors.length ? `${text.degraded} | Error(s): ${aggregate(errors)}` : text.degraded,
    },
    input.now,
  );
  // The oldest marketplace RHCOS release of the pass, by major.minor; an equal one keeps the first.
  let rhcosVersion = "";
  for (const o of outcomes)
    if (o.rhcosVersion && (rhcosVersion === "" || cmpRHCOSVersion(o.rhcosVersion, rhcosVersion) < 0)) rhcosVersion = o.rhcosVersion;
  let record: ControllerResult["record"] = null;
  if (input.skewEnforcement && errors.length === 0) {
    if (stats.skipped === 0) {
      // updateClusterBootImage: marketplace clusters record the RHCOS release they got, others the stream's OCP release.
      const release = parseGeneric(input.configMap?.data?.releaseVersion);
      if (rhcosVersion) record = { action: "update", rhcosVersion };
      else if (release) record = { action: "update", ocpVersion: xyz(release) };
    } else record = { action: "reset", ocpVersion: installVersion };
  }
  return {
    ran: true,
    machineSets: outcomes.flatMap((o) => (o.next ? [o.next] : [])),
    outcomes: outcomes.map((o) => o.outcome),
    conditions,
    record,
  };
}
