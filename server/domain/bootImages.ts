/*
 * Which boot image a MachineSet boots from, what release that is, how we know, and what the MCO's
 * boot image controller does with it (docs/openshift.md §15, §18, §19). Pure and total: any input
 * gives a result.
 */
import { allowedAmisFor } from "./awsAllowedAmis";
import { selectorMatches, type LabelSelector } from "./labelSelector";
import { mcoRulesFor } from "./mcoRelease";
import { bootImagesSupported } from "./platforms";
import { installVersion, type HistoryEntry } from "./skew";
import { parseOcpVersion, parseRhcosBuild } from "./versions";
import {
  buildFromImageName,
  catalogKey,
  displayReference,
  extractBootImage,
  obj,
  str,
  type BootImageReference,
} from "./bootImageReference";
import type { McoDecision, ResolvedBootImage } from "./resolvedBootImage";

export { buildFromImageName, catalogKey, displayReference, extractBootImage, type BootImageReference };


export type MachineSetInput = {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { kind: string; name: string }[];
  templateLabels?: Record<string, string>;
  providerSpec: unknown;
};

/** What the fleet has learned elsewhere: image reference → RHCOS build and OCP release. */
export interface BootImageCatalog {
  lookup(key: string): { rhcosBuild: string; ocpVersion: string | null } | null;
}
export const emptyCatalog: BootImageCatalog = { lookup: () => null };

export type MachineManager = {
  resource?: string;
  apiGroup?: string;
  selection?: { mode?: string; partial?: { machineResourceSelector?: LabelSelector } };
};

/** What createNewVMTemplate reads of Infrastructure spec.platformSpec.vsphere. */
export type VSphereInfrastructure = {
  vcenters: string[];
  failureDomains: { server: string; datacenter: string; datastore: string; resourcePool: string; vmGroup: string }[];
};

export type ClusterBootContext = {
  /** The `stream` value of coreos-bootimages, parsed; null when unreadable. */
  stream: unknown;
  /** coreos-bootimages data.releaseVersion. */
  releaseVersion: string | null;
  history: HistoryEntry[] | null | undefined;
  /** Infrastructure status.platformStatus.type. */
  platform: string | null;
  /** The machine managers the boot image controller enrols by (status.managedBootImagesStatus, or the spec before 4.19). */
  machineManagers: MachineManager[] | null;
  /** ClusterVersion status.desired.architecture === "Multi". */
  multiArch?: boolean;
  /** Infrastructure status.platformStatus.azure.cloudName (AzureStackCloud is not supported). */
  azureCloudName?: string | null;
  /** kubernetes.io/arch of the control-plane nodes (Go name, e.g. amd64): the MCO's own architecture. */
  controlPlaneArchitecture?: string | null;
  /**
   * vSphere: Infrastructure spec.platformSpec.vsphere, as createNewVMTemplate matches a MachineSet's
   * workspace against it; null when the field is unset (the MCO then does nothing), undefined when
   * not read (older snapshots, a what-if without it).
   */
  vsphere?: VSphereInfrastructure | null;
  /** The release whose MCO decides; its rules differ (release-4.22 vs later). Default: the newest history entry. */
  release?: string | null;
  /**
   * The controller manages MachineSets now and has finished a pass without errors
   * (BootImageUpdateProgressing False, BootImageUpdateDegraded not True): an enrolled MachineSet it
   * could update is on the stream's image, so one that is not was left alone.
   */
  controllerSettled?: boolean;
  /**
   * The Automatic record's `rhcosVersion`, when the controller wrote one: `updateClusterBootImage`
   * writes it only after a pass with AWS Marketplace MachineSets and no skipped MachineSet
   * (ms_helpers.go `syncMAPIMachineSets`, release-4.23 d20efd9b9bdb); a skip resets the record to the
   * install version's `ocpVersion` instead.
   */
  automaticRhcosVersion?: string | null;
  /**
   * What-if: decide as the MCO would once it manages boot images here, at a release that supports
   * the platform, even when the cluster's own release does not yet (prediction for a later release).
   */
  hypothetical?: boolean;
};

export const OS_ID_LABEL = "machine.openshift.io/os-id";

/** Whether a MachineSet boots Windows (`syncMAPIMachineSet`'s OSLabelKey check), so boot-image skew leaves it out. */
export const bootsWindows = (m: { windows?: boolean }) => m.windows === true;

export const ARCH_ANNOTATION = "capacity.cluster-autoscaler.kubernetes.io/labels";
const ARCH_LABEL = "kubernetes.io/arch=";
/** Go architecture names the MCO accepts → the RPM names stream metadata uses (stream-metadata-go `arch.RpmArch`). */
const RPM_ARCH: Record<string, string> = { amd64: "x86_64", arm64: "aarch64", ppc64le: "ppc64le", s390x: "s390x" };
export const rpmArchOf = (goArch: string | null | undefined) => (goArch ? (RPM_ARCH[goArch] ?? goArch) : null);

export type ArchitectureResult = { arch: string; source: "annotation" | "control-plane" } | { skip: string } | { error: string };

/**
 * `getArchFromMachineSet` (ms_helpers.go; §15.3): the annotation
 * `capacity.cluster-autoscaler.kubernetes.io/labels` is a comma-separated list; the first entry
 * starting `kubernetes.io/arch=` decides, and its value must be amd64, arm64, ppc64le or s390x (else
 * an error). An annotation without that entry is an error too. Without the annotation a multi-arch
 * cluster skips the MachineSet, and a single-arch one uses the control plane's architecture.
 */
export function architectureOf(
  ms: Pick<MachineSetInput, "name" | "annotations">,
  context: Pick<ClusterBootContext, "multiArch" | "controlPlaneArchitecture">,
): ArchitectureResult {
  const annotation = ms.annotations?.[ARCH_ANNOTATION];
  if (annotation === undefined) {
    if (context.multiArch) return { skip: `multi-architecture cluster and no ${ARCH_ANNOTATION} annotation on the MachineSet` };
    return { arch: rpmArchOf(context.controlPlaneArchitecture) ?? "x86_64", source: "control-plane" };
  }
  for (const raw of annotation.split(",")) {
    const label = raw.trim();
    if (!label.startsWith(ARCH_LABEL)) continue;
    const value = label.slice(ARCH_LABEL.length);
    if (RPM_ARCH[value]) return { arch: RPM_ARCH[value]!, source: "annotation" };
    return { error: `invalid architecture value found in annotation: ${value}` };
  }
  return { error: `kubernetes.io/arch label not found in annotation: ${annotation}` };
}

type StreamImage = { image: string; release: string };

/** The image the stream names for this platform/arch/region, if any. */
function streamImage(stream: unknown, ref: BootImageReference, arch: string): StreamImage | null {
  const a = obj(obj(obj(stream).architectures)[arch]);
  const images = obj(a.images);
  if (ref.platform === "AWS") {
    const entry = obj(obj(obj(images.aws).regions)[ref.region ?? ""]);
    return str(entry.image) && str(entry.release) ? { image: String(entry.image), release: String(entry.release) } : null;
  }
  if (ref.platform === "GCP") {
    const gcp = obj(images.gcp);
    return str(gcp.project) && str(gcp.name) && str(gcp.release)
      ? { image: `projects/${gcp.project}/global/images/${gcp.name}`, release: String(gcp.release) }
      : null;
  }
  if (ref.platform === "VSphere") {
    const vmware = obj(obj(a.artifacts).vmware);
    return str(vmware.release) ? { image: "", release: String(vmware.release) } : null;
  }
  return null;
}

/** Every AMI the stream names, in any region and architecture: all of them are published RHCOS AMIs. */
function streamAmis(stream: unknown): Set<string> {
  const out = new Set<string>();
  for (const a of Object.values(obj(obj(stream).architectures)))
    for (const entry of Object.values(obj(obj(obj(obj(a).images).aws).regions))) {
      const image = str(obj(entry).image);
      if (image) out.add(image);
    }
  return out;
}

/**
 * OCP minor a legacy RHCOS build belongs to ("412.86…" → "4.12"), also when an Azure marketplace
 * version leaves out the build's time of day ("416.94.20240529"); new builds (9.6.…) do not say.
 */
const ocpFromBuild = (build: string | null) => {
  if (!build) return null;
  const legacy = /^4(\d{2})\.\d{2,3}\.\d{8}/.exec(build);
  return parseRhcosBuild(build)?.ocpMinor ?? (legacy ? `4.${Number(legacy[1])}` : null);
};

const newestRelease = (context: ClusterBootContext) => context.release ?? context.history?.[0]?.version ?? null;


const AZURE_PAID = new Set(
  ["redhat", "redhat-limited"].flatMap((publisher) =>
    ["rh-ocp-worker", "rh-opp-worker", "rh-oke-worker"].map((offer) => `${publisher}/${offer}`),
  ),
);

/** platform_helpers.go's AzureVariant names, as its errors print them. */
const AZURE_VARIANT_NAMES: Record<string, string> = {
  "no-purchase-plan": "MarketplaceNoPlan",
  ocp: "MarketplaceWithPlan-OCP",
  opp: "MarketplaceWithPlan-OPP",
  oke: "MarketplaceWithPlan-OKE",
  "ocp-emea": "MarketplaceWithPlan-OCPEMEA",
  "opp-emea": "MarketplaceWithPlan-OPPEMEA",
  "oke-emea": "MarketplaceWithPlan-OKEEMEA",
};

/** Azure marketplace image sets in the stream, by variant key (`determineAzureVariant` → stream-metadata-go field names). */
function azureVariantKey(ref: Extract<BootImageReference, { platform: "Azure" }>): string | null {
  if (ref.resourceID || ref.marketplace?.publisher === "azureopenshift") return "no-purchase-plan";
  const key = ref.marketplace ? `${ref.marketplace.publisher}/${ref.marketplace.offer}` : "";
  if (!AZURE_PAID.has(key)) return null;
  const product = ref.marketplace!.offer.replace(/^rh-/, "").replace(/-worker$/, "");
  return ref.marketplace!.publisher === "redhat-limited" ? `${product}-emea` : product;
}

const syncError = (ms: string, inner: string) => `error syncing MAPI MachineSet ${ms}: ${inner}`;
const reconcileError = (ms: string, inner: string) => syncError(ms, `failed to reconcile machineset ${ms}, err: ${inner}`);

/** The stream's name (`stream` of the stream metadata), as stream-metadata-go prints it in its errors. */
const streamNameOf = (stream: unknown) => String(obj(stream).stream ?? "");
/** stream-metadata-go `GetArchitecture`'s error (stream_utils.go). */
const archNotInStream = (stream: unknown, arch: string) => `stream:${streamNameOf(stream)} does not have architecture '${arch}'`;

const exclude = (reason: string): McoDecision => ({ action: "exclude", reason });
/** The MCO panics here; what follows is a crash-looping controller, not a Degraded condition. */
const crashed = (reason: string, where: string): McoDecision => ({
  action: "error",
  reason,
  error: `the MCO's boot image controller crashes here (a nil pointer dereference in ${where}) and writes no Degraded message of its own`,
  crash: true,
});
const skip = (reason: string, basis?: McoDecision["basis"]): McoDecision => ({ action: "skip", reason, ...(basis ? { basis } : {}) });
const failed = (reason: string, error: string): McoDecision => ({ action: "error", reason, error });

/**
 * AWS: `reconcileAWSProviderSpec`. release-4.22 (platform_helpers.go): no AMI for the region and
 * architecture in the stream → skipped; no ami.id → skipped; the stream's AMI → current; an AMI not
 * in its compiled AllowedAMIs (awsAllowedAmis.ts, data with its commit) → skipped; else updated. Later
 * lines (aws_helpers.go): no ami.id → skipped, then the AMI's owner, which Fleetskew cannot ask EC2
 * for: it recognises AMIs a boot image stream has named and assumes the rest are skipped.
 */
function awsDecision(
  ms: MachineSetInput,
  ref: Extract<BootImageReference, { platform: "AWS" }>,
  context: ClusterBootContext,
  arch: string,
  enrolled: string,
  catalog: BootImageCatalog,
): McoDecision {
  const rules = mcoRulesFor(newestRelease(context));
  const target = streamImage(context.stream, ref, arch);
  const list = rules.awsAmiRecognition === "allowed-amis-list" ? allowedAmisFor(rules.release) : null;
  if (list) {
    if (!target) return skip(`region ${ref.region ?? "(none)"} has no ${arch} AMI in the cluster's boot image stream`);
    if (!ref.ami) return skip(`ami.id is not set (the AMI is chosen by ${ref.via}), so the MCO skips it`);
    if (ref.ami === target.image) return { action: "update", reason: enrolled };
    if (!list.has(ref.ami))
      return { ...skip(`${ref.ami} is not in ${list.label}, so the ${rules.release} MCO skips it`, "observed"), amiList: list.label };
    return { action: "update", reason: `${enrolled}; ${ref.ami} is in ${list.label}`, amiList: list.label };
  }
  // aws_helpers.go reconcileAWSProviderSpec: ami.id first, then EC2 (the aws-cloud-credentials
  // Secret, DescribeImages on the AMI) for every AMI, then the owner decides (detectAMIKind).
  if (!ref.ami) return skip(`ami.id is not set (the AMI is chosen by ${ref.via}), so the MCO skips it`);
  const ec2 = ec2Dependency(ms.name, ref.ami);
  // What the running controller left alone says something only when it follows the same rules: an
  // older MCO judged by its compiled list, which leaves Marketplace AMIs alone that 4.23 updates.
  const sameRules = mcoRulesFor(context.history?.[0]?.version).awsAmiRecognition === rules.awsAmiRecognition;
  if (context.controllerSettled && sameRules && !(target && ref.ami === target.image)) {
    // A record with an rhcosVersion means that pass skipped nothing: an AMI off the stream's image is
    // then a Marketplace AMI the MCO chose itself (findMarketplaceAMI), not one it left alone.
    if (context.automaticRhcosVersion)
      return {
        action: "update",
        reason:
          `${enrolled}; the MCO manages it, left ${ref.ami} in place and recorded rhcosVersion ${context.automaticRhcosVersion}, which it writes only ` +
          `when no MachineSet was skipped (syncMAPIMachineSets, updateClusterBootImage): ${ref.ami} is an AWS Marketplace AMI it keeps current (findMarketplaceAMI)`,
        basis: "observed",
        rhcosVersion: context.automaticRhcosVersion,
        ifFails: ec2,
      };
    return skip(`the MCO manages it and has left ${ref.ami} in place, so it does not recognise it as a published RHCOS AMI`, "observed");
  }
  // Published by Red Hat's account (531415883065): named by a boot image stream, learned from one,
  // or in the installer's every published RHCOS AMI (release-4.22's AllowedAMIs, the same source).
  const published = allowedAmisFor("4.22");
  const standard =
    (target !== null && ref.ami === target.image) ||
    streamAmis(context.stream).has(ref.ami) ||
    (catalogKey(ref) !== null && catalog.lookup(catalogKey(ref)!) !== null) ||
    (published?.has(ref.ami) ?? false);
  if (standard) {
    if (!target) return { ...skip(`region ${ref.region ?? "(none)"} has no ${arch} AMI in the cluster's boot image stream`), ifFails: ec2 };
    return { action: "update", reason: ref.ami === target.image ? enrolled : `${enrolled}; ${ref.ami} is a published RHCOS AMI`, ifFails: ec2 };
  }
  // ROSA Classic boots from its AWS Marketplace product (rosaProductID): detectAMIKind → amiKindROSA.
  if (rosaTagged(ms.providerSpec)) {
    const token = marketplaceTarget(context.stream, arch);
    return {
      action: "update",
      reason:
        `${enrolled}; a ROSA MachineSet (tag red-hat-clustertype: rosa) boots from ROSA's AWS Marketplace AMIs, which the ${rules.release} MCO replaces ` +
        `with the newest one at RHCOS ${token?.token ?? "(the stream's aws release)"} or older in the region (findMarketplaceAMI), recording an rhcosVersion; ` +
        `none published there yet → skipped`,
      basis: "assumed",
      ...(token ? { rhcosVersion: token.release } : {}),
      ifFails: ec2,
    };
  }
  // The owner EC2 reports decides, and Fleetskew cannot ask EC2.
  return {
    action: "skip",
    reason:
      `depends on EC2: ${ref.ami} is in no boot image stream Fleetskew has seen nor among the installer's published RHCOS AMIs; the ${rules.release} MCO asks EC2 who owns it ` +
      `(detectAMIKind): Red Hat's (531415883065) are updated, AWS Marketplace ones (679593333241) too with an rhcosVersion record, any other owner (a custom or copied AMI) skipped, ` +
      `and an AMI it cannot describe degrades the controller`,
    basis: "unknown",
    ifFails: ec2,
  };
}

/** The AWS MachineSet carries ROSA's tag (providerSpec tags, from the installer's userTags; Infrastructure resourceTags carry the same). */
function rosaTagged(providerSpec: unknown): boolean {
  const tags = obj(providerSpec).tags;
  return Array.isArray(tags) && tags.some((t) => str(obj(t).name) === "red-hat-clustertype" && str(obj(t).value) === "rosa");
}

/**
 * `resolveMarketplaceAMI` → `marketplaceVersionToken`: the stream's `artifacts.aws.release` for the
 * architecture, cut to "major.minor"; findMarketplaceAMI takes the newest AMI at that version or
 * older, and its description's full release becomes the record. Null when the stream does not say.
 */
function marketplaceTarget(stream: unknown, arch: string): { token: string; release: string } | null {
  const release = str(obj(obj(obj(obj(obj(stream).architectures)[arch]).artifacts).aws).release);
  if (!release) return null;
  const m = /^(\d+\.\d+)\.(?:\d{8}|\d{12})-\d+$/.exec(release);
  return m && Number(m[1]!.split(".")[0]) < 100 ? { token: m[1]!, release } : null;
}

/**
 * What the MCO writes when EC2 fails it (aws_helpers.go getAWSEC2Client, describeAMI), wrapped as
 * syncMAPIMachineSet wraps it. A reading Fleetskew cannot make: the text of the failure case.
 */
const ec2Dependency = (ms: string, ami: string) =>
  reconcileError(ms, `AMI ${ami} not found`) +
  ` (or "failed to fetch aws-cloud-credentials secret: …", "DescribeImages failed for ${ami}: …" when the credentials or EC2 fail)`;

/** Azure: `reconcileAzureProviderSpec` — marketplace images only, per variant and Hyper-V generation. */
function azureDecision(
  ms: MachineSetInput,
  ref: Extract<BootImageReference, { platform: "Azure" }>,
  context: ClusterBootContext,
  arch: string,
  enrolled: string,
): McoDecision {
  if (arch === "ppc64le" || arch === "s390x")
    return exclude(`${arch} MachineSets are not updated on Azure; excluded, not counted as skipped`);
  const security = obj(obj(obj(ms.providerSpec).securityProfile).settings).securityType;
  if (str(security))
    return exclude(`security type ${String(security)} is not supported for boot image updates on Azure; excluded, not counted as skipped`);
  const variant = azureVariantKey(ref);
  if (!variant)
    return failed(
      "the MCO cannot tell which Azure marketplace variant its image is",
      reconcileError(ms.name, "could not determine azure marketplace variant, cannot update boot images"),
    );
  const architectures = obj(obj(context.stream).architectures);
  const archEntry = obj(architectures[arch]);
  const extensions = obj(archEntry["rhel-coreos-extensions"]);
  const marketplace = obj(extensions.marketplace);
  // streamData.GetArchitecture(arch): a map lookup, so only a missing key is an error.
  if (!Object.prototype.hasOwnProperty.call(architectures, arch))
    return failed("the boot image stream has no entry for its architecture", reconcileError(ms.name, archNotInStream(context.stream, arch)));
  // Go pointers: a present (even empty) object is non-nil, an absent one nil. RHELCoreOSExtensions is
  // dereferenced without a check (`streamArch.RHELCoreOSExtensions.Marketplace`).
  if (archEntry["rhel-coreos-extensions"] == null)
    return crashed("the boot image stream has no rhel-coreos-extensions for its architecture", "reconcileAzureProviderSpec");
  if (extensions.marketplace == null) return skip("the cluster's boot image stream has no marketplace images, so the MCO skips it");
  if (marketplace.azure == null) return skip("the cluster's boot image stream has no Azure marketplace images, so the MCO skips it");
  // getTargetImageFromStream: the variant's image set, then Gen1 or Gen2 as the current image is.
  const images = obj(obj(marketplace.azure)[variant]);
  const variantName = AZURE_VARIANT_NAMES[variant] ?? variant;
  if (obj(marketplace.azure)[variant] == null)
    return failed(
      `the boot image stream has no Azure marketplace images for its variant (${variantName})`,
      reconcileError(ms.name, `no Azure marketplace images available for variant ${variantName}`),
    );
  const sku = ref.marketplace?.sku ?? "";
  const gen2 = ref.resourceID
    ? ref.resourceID.includes("gen2")
    : ref.type === "MarketplaceNoPlan"
      ? sku.includes("v2") || arch === "aarch64"
      : !sku.includes("gen1");
  if (images[gen2 ? "hyperVGen2" : "hyperVGen1"] == null)
    return failed(
      `the boot image stream has no ${gen2 ? "Gen2" : "Gen1"} Azure marketplace image`,
      reconcileError(ms.name, `no ${gen2 ? "Gen2" : "Gen1"} Azure marketplace image available for architecture ${arch}`),
    );
  return { action: "update", reason: enrolled };
}

/** Go's path.Clean, for the resource pool paths createNewVMTemplate compares. */
export function goPathClean(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
    } else out.push(part);
  }
  const joined = out.join("/");
  return rooted ? `/${joined}` : joined || ".";
}

/**
 * vSphere: `reconcileVSphereProviderSpec` (platform_helpers.go) and `createNewVMTemplate`
 * (vsphere_helpers.go), release-4.22 and release-4.23 alike: Infrastructure spec.platformSpec.vsphere
 * unset → nothing done and nothing skipped; the architecture must be in the stream with a `vmware`
 * artifact; the `vsphere-creds` Secret in kube-system (Fleetskew does not read Secrets); then the
 * workspace must match a vCenter and a failure domain of the Infrastructure (server, datacenter,
 * datastore, vmGroup, resource pool after path.Clean), else an error. Making the template in vCenter
 * Fleetskew cannot see: an update there is assumed.
 */
function vsphereDecision(ms: MachineSetInput, context: ClusterBootContext, arch: string, enrolled: string): McoDecision {
  const infra = context.vsphere;
  if (infra === null)
    return {
      action: "update",
      reason: `${enrolled}; Infrastructure spec.platformSpec.vsphere is not set, so the MCO does nothing to it and counts it as reconciled, not skipped (its template is not refreshed)`,
    };
  const architectures = obj(obj(context.stream).architectures);
  if (context.stream != null && !Object.prototype.hasOwnProperty.call(architectures, arch))
    return failed("the boot image stream has no entry for its architecture", reconcileError(ms.name, archNotInStream(context.stream, arch)));
  if (context.stream != null && !str(obj(obj(obj(architectures[arch]).artifacts).vmware).release))
    return failed(
      "the boot image stream has no vmware artifact for its architecture",
      reconcileError(ms.name, `${streamNameOf(context.stream)}/${arch}: artifact 'vmware' not found`),
    );
  const credentials = reconcileError(ms.name, `failed to fetch vsphere-creds Secret during machineset sync: secrets "vsphere-creds" not found`);
  const credsUnknown = "whether the kube-system/vsphere-creds Secret exists is not known to Fleetskew, which does not read Secrets";
  if (infra === undefined)
    return {
      action: "update",
      reason: `${enrolled}; assumed to succeed: the Infrastructure's vCenters and failure domains were not read, and ${credsUnknown}`,
      basis: "assumed",
      ifFails: credentials,
    };
  const ws = obj(obj(ms.providerSpec).workspace);
  if (obj(ms.providerSpec).workspace == null)
    return crashed("its providerSpec has no workspace", "createNewVMTemplate");
  const w = {
    server: str(ws.server) ?? "",
    datacenter: str(ws.datacenter) ?? "",
    datastore: str(ws.datastore) ?? "",
    resourcePool: str(ws.resourcePool) ?? "",
    vmGroup: str(ws.vmGroup) ?? "",
  };
  const matches =
    infra.vcenters.includes(w.server) &&
    infra.failureDomains.some(
      (fd) =>
        fd.datacenter === w.datacenter &&
        fd.datastore === w.datastore &&
        fd.server === w.server &&
        fd.vmGroup === w.vmGroup &&
        goPathClean(fd.resourcePool) === goPathClean(w.resourcePool),
    );
  if (!matches) {
    const details =
      `server: ${w.server}, datacenter: ${w.datacenter}, datastore: ${w.datastore}, resourcePool: ${w.resourcePool}` +
      (w.vmGroup ? `, vmGroup: ${w.vmGroup}` : "");
    return failed(
      "its workspace matches no vCenter and failure domain of the Infrastructure (spec.platformSpec.vsphere), so the MCO cannot make the new template" +
        ` (should the vsphere-creds Secret be missing, the MCO fails on that first: ${credentials})`,
      reconcileError(ms.name, `providerSpec workspace (${details}) does not match any vCenter/failure domain in the Infrastructure object`),
    );
  }
  return {
    action: "update",
    reason: `${enrolled}; its workspace matches a failure domain; assumed to succeed: ${credsUnknown}, and the template is made in vCenter`,
    basis: "assumed",
    ifFails: credentials,
  };
}

/**
 * What the MCO's boot image controller does with this MachineSet (docs/openshift.md §15), in the
 * order of `syncMAPIMachineSets` → `syncMAPIMachineSet` → `checkMachineSet` and the platform's
 * `reconcile…ProviderSpec` (ms_helpers.go, platform_helpers.go; release-4.22, with main's AWS rule
 * from aws_helpers.go `detectAMIKind` for later releases).
 */
export function mcoDecision(
  ms: MachineSetInput,
  ref: BootImageReference,
  context: ClusterBootContext,
  catalog: BootImageCatalog = emptyCatalog,
): McoDecision {
  const release = newestRelease(context);
  const platform = context.platform ?? (ref.platform !== "other" ? ref.platform : null);
  const minor = parseOcpVersion(release);
  const platformMinor = context.hypothetical || (minor && minor.major > 4) ? Number.MAX_SAFE_INTEGER : (minor?.minor ?? 0);
  // IsBootImageControllerRequired / CheckBootImagePlatform: the controller does not run elsewhere.
  if (!bootImagesSupported(platform, platformMinor, context.azureCloudName))
    return exclude(
      platform === "Azure" && context.azureCloudName === "AzureStackCloud"
        ? "the MCO does not manage boot images on Azure Stack Hub (AzureStackCloud)"
        : `the MCO does not manage boot images on ${platform ?? "this platform"}`,
    );
  // getMachineResourceSelectorFromMachineManagers: the machinesets / machine.openshift.io entry.
  const manager = (context.machineManagers ?? []).find((m) => m.resource === "machinesets" && m.apiGroup === "machine.openshift.io");
  const mode = manager?.selection?.mode ?? "None";
  if (mode !== "All" && mode !== "Partial") return exclude("boot image updates are off for MachineSets (managedBootImages: None)");
  if (mode === "Partial" && !selectorMatches(manager?.selection?.partial?.machineResourceSelector, ms.labels))
    return exclude("not selected by the Partial machineResourceSelector");
  const enrolled = mode === "Partial" ? "selected by the Partial machineResourceSelector" : "all MachineSets are managed (mode All)";

  if (ms.ownerReferences && ms.ownerReferences.length > 0) {
    const o = ms.ownerReferences[0]!;
    return skip(`has an owner reference (${o.kind}/${o.name}); the MCO leaves it to that owner and counts it as skipped`);
  }
  const osStream = ms.labels?.["machineconfiguration.openshift.io/osstream"];
  if (osStream !== undefined && osStream !== "rhel-9")
    return exclude(`OS stream ${osStream || '""'} is not the stream the MCO updates (rhel-9); excluded, not counted as skipped`);
  if (ms.templateLabels?.[OS_ID_LABEL] === "Windows")
    return exclude("Windows MachineSets are excluded by the MCO, not counted as skipped");
  const arch = architectureOf(ms, context);
  if ("skip" in arch) return skip(arch.skip);
  if ("error" in arch)
    return failed(
      `the MCO cannot read its architecture (${arch.error}), so its boot image controller goes Degraded`,
      syncError(ms.name, `failed to fetch arch during machineset sync: ${arch.error}`),
    );

  switch (ref.platform) {
    case "AWS":
      return awsDecision(ms, ref, context, arch.arch, enrolled, catalog);
    case "GCP": {
      // reconcileGCPProviderSpec builds the target from `Architectures[arch].Images.Gcp` before
      // anything else, without a nil check: no GCP image for the architecture is a panic.
      const gcp = obj(obj(obj(obj(context.stream).architectures)[arch.arch]).images).gcp;
      if (gcp == null) return crashed("the cluster's boot image stream has no GCP image for its architecture", "reconcileGCPProviderSpec");
      const target = streamImage(context.stream, ref, arch.arch);
      if (target && ref.image === target.image) return { action: "update", reason: enrolled };
      if (!(ref.image ?? "").startsWith("projects/rhcos-cloud/global/images"))
        return skip("the image is not an RHCOS image from projects/rhcos-cloud, so the MCO skips it");
      return { action: "update", reason: enrolled };
    }
    case "Azure":
      return azureDecision(ms, ref, context, arch.arch, enrolled);
    case "VSphere":
      return vsphereDecision(ms, context, arch.arch, enrolled);
    default:
      return exclude(`the MCO does not manage boot images on ${platform}`);
  }
}

export function resolveBootImage(
  ms: MachineSetInput,
  context: ClusterBootContext,
  catalog: BootImageCatalog = emptyCatalog,
): ResolvedBootImage {
  const reference = extractBootImage(ms.providerSpec);
  const archResult = architectureOf(ms, context);
  const arch = "arch" in archResult ? archResult.arch : (rpmArchOf(context.controlPlaneArchitecture) ?? "x86_64");
  const notes: string[] = [];
  const key = catalogKey(reference);
  const base = {
    machineSet: ms.name,
    reference,
    display: displayReference(reference),
    key,
    mco: mcoDecision(ms, reference, context, catalog),
    notes,
    ...(ms.templateLabels?.[OS_ID_LABEL] === "Windows" ? { windows: true } : {}),
  };
  if (reference.platform === "other") {
    return {
      ...base,
      rhcosBuild: null,
      ocpVersion: null,
      provenance: "unknown",
      matchesStream: null,
      notes: ["Fleetskew cannot read a boot image from this provider spec"],
    };
  }
  const fromStream = streamImage(context.stream, reference, arch);
  const sameAsStream =
    fromStream && reference.platform !== "VSphere"
      ? (reference.platform === "AWS" && reference.ami === fromStream.image) ||
        (reference.platform === "GCP" && reference.image === fromStream.image)
      : null;
  if ("arch" in archResult && archResult.source === "control-plane")
    notes.push(`no architecture annotation; the MCO uses the control plane's architecture (${arch})`);
  if (sameAsStream) {
    return { ...base, rhcosBuild: fromStream!.release, ocpVersion: context.releaseVersion, provenance: "stream", matchesStream: true };
  }
  const named = buildFromImageName(reference);
  if (named) {
    return { ...base, rhcosBuild: named, ocpVersion: ocpFromBuild(named), provenance: "image-name", matchesStream: sameAsStream };
  }
  const learned = key ? catalog.lookup(key) : null;
  if (learned) {
    return {
      ...base,
      rhcosBuild: learned.rhcosBuild,
      ocpVersion: learned.ocpVersion ?? ocpFromBuild(learned.rhcosBuild),
      provenance: "catalog",
      matchesStream: sameAsStream,
    };
  }
  if (reference.platform === "VSphere")
    notes.push("vSphere templates keep their name across versions; the template's version cannot be read from the API");
  const install = installVersion(context.history);
  if (install !== "0.0.0") {
    notes.push("assumed to be the image the cluster was installed with, as the MCO assumes");
    return { ...base, rhcosBuild: null, ocpVersion: install, provenance: "install-version", matchesStream: sameAsStream };
  }
  return { ...base, rhcosBuild: null, ocpVersion: null, provenance: "unknown", matchesStream: sameAsStream };
}
