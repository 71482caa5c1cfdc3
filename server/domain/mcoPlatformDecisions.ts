/*
 * The platform steps of the MCO's boot image controller: `reconcileAWSProviderSpec`,
 * `reconcileAzureProviderSpec` and vSphere's `createNewVMTemplate` (platform_helpers.go,
 * aws_helpers.go; docs/openshift.md §15), each turning a MachineSet into the MCO's decision.
 * bootImages.ts calls them once the controller's common checks have passed. Pure and total.
 */
import { allowedAmisFor } from "./awsAllowedAmis";
import { mcoRulesFor } from "./mcoRelease";
import { catalogKey, obj, str, type BootImageReference } from "./bootImageReference";
import type { McoDecision } from "./resolvedBootImage";
import {
  type BootImageCatalog,
  type ClusterBootContext,
  type MachineSetInput,
  newestRelease,
  streamAmis,
  streamImage,
} from "./bootImageInputs";

export const AZURE_PAID = new Set(
  ["redhat", "redhat-limited"].flatMap((publisher) =>
    ["rh-ocp-worker", "rh-opp-worker", "rh-oke-worker"].map((offer) => `${publisher}/${offer}`),
  ),
);

/** platform_helpers.go's AzureVariant names, as its errors print them. */
export const AZURE_VARIANT_NAMES: Record<string, string> = {
  "no-purchase-plan": "MarketplaceNoPlan",
  ocp: "MarketplaceWithPlan-OCP",
  opp: "MarketplaceWithPlan-OPP",
  oke: "MarketplaceWithPlan-OKE",
  "ocp-emea": "MarketplaceWithPlan-OCPEMEA",
  "opp-emea": "MarketplaceWithPlan-OPPEMEA",
  "oke-emea": "MarketplaceWithPlan-OKEEMEA",
};

/** Azure marketplace image sets in the stream, by variant key (`determineAzureVariant` → stream-metadata-go field names). */
export function azureVariantKey(ref: Extract<BootImageReference, { platform: "Azure" }>): string | null {
  if (ref.resourceID || ref.marketplace?.publisher === "azureopenshift") return "no-purchase-plan";
  const key = ref.marketplace ? `${ref.marketplace.publisher}/${ref.marketplace.offer}` : "";
  if (!AZURE_PAID.has(key)) return null;
  const product = ref.marketplace!.offer.replace(/^rh-/, "").replace(/-worker$/, "");
  return ref.marketplace!.publisher === "redhat-limited" ? `${product}-emea` : product;
}

export const syncError = (ms: string, inner: string) => `error syncing MAPI MachineSet ${ms}: ${inner}`;
export const reconcileError = (ms: string, inner: string) => syncError(ms, `failed to reconcile machineset ${ms}, err: ${inner}`);

/** The stream's name (`stream` of the stream metadata), as stream-metadata-go prints it in its errors. */
export const streamNameOf = (stream: unknown) => String(obj(stream).stream ?? "");
/** stream-metadata-go `GetArchitecture`'s error (stream_utils.go). */
export const archNotInStream = (stream: unknown, arch: string) => `stream:${streamNameOf(stream)} does not have architecture '${arch}'`;

export const exclude = (reason: string): McoDecision => ({ action: "exclude", reason });
/** The MCO panics here; what follows is a crash-looping controller, not a Degraded condition. */
export const crashed = (reason: string, where: string): McoDecision => ({
  action: "error",
  reason,
  error: `the MCO's boot image controller crashes here (a nil pointer dereference in ${where}) and writes no Degraded message of its own`,
  crash: true,
});
export const skip = (reason: string, basis?: McoDecision["basis"]): McoDecision => ({
  action: "skip",
  reason,
  ...(basis ? { basis } : {}),
});
export const failed = (reason: string, error: string): McoDecision => ({ action: "error", reason, error });

/**
 * AWS: `reconcileAWSProviderSpec`. release-4.22 (platform_helpers.go): no AMI for the region and
 * architecture in the stream → skipped; no ami.id → skipped; the stream's AMI → current; an AMI not
 * in its compiled AllowedAMIs (awsAllowedAmis.ts, data with its commit) → skipped; else updated. Later
 * lines (aws_helpers.go): no ami.id → skipped, then the AMI's owner, which Fleetskew cannot ask EC2
 * for: it recognises AMIs a boot image stream has named and assumes the rest are skipped.
 */
export function awsDecision(
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
    return {
      action: "update",
      reason: ref.ami === target.image ? enrolled : `${enrolled}; ${ref.ami} is a published RHCOS AMI`,
      ifFails: ec2,
    };
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
export function rosaTagged(providerSpec: unknown): boolean {
  const tags = obj(providerSpec).tags;
  return Array.isArray(tags) && tags.some((t) => str(obj(t).name) === "red-hat-clustertype" && str(obj(t).value) === "rosa");
}

/**
 * `resolveMarketplaceAMI` → `marketplaceVersionToken`: the stream's `artifacts.aws.release` for the
 * architecture, cut to "major.minor"; findMarketplaceAMI takes the newest AMI at that version or
 * older, and its description's full release becomes the record. Null when the stream does not say.
 */
export function marketplaceTarget(stream: unknown, arch: string): { token: string; release: string } | null {
  const release = str(obj(obj(obj(obj(obj(stream).architectures)[arch]).artifacts).aws).release);
  if (!release) return null;
  const m = /^(\d+\.\d+)\.(?:\d{8}|\d{12})-\d+$/.exec(release);
  return m && Number(m[1]!.split(".")[0]) < 100 ? { token: m[1]!, release } : null;
}

/**
 * What the MCO writes when EC2 fails it (aws_helpers.go getAWSEC2Client, describeAMI), wrapped as
 * syncMAPIMachineSet wraps it. A reading Fleetskew cannot make: the text of the failure case.
 */
export const ec2Dependency = (ms: string, ami: string) =>
  reconcileError(ms, `AMI ${ami} not found`) +
  ` (or "failed to fetch aws-cloud-credentials secret: …", "DescribeImages failed for ${ami}: …" when the credentials or EC2 fail)`;

/** Azure: `reconcileAzureProviderSpec` — marketplace images only, per variant and Hyper-V generation. */
export function azureDecision(
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
    return failed(
      "the boot image stream has no entry for its architecture",
      reconcileError(ms.name, archNotInStream(context.stream, arch)),
    );
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
export function vsphereDecision(ms: MachineSetInput, context: ClusterBootContext, arch: string, enrolled: string): McoDecision {
  const infra = context.vsphere;
  if (infra === null)
    return {
      action: "update",
      reason: `${enrolled}; Infrastructure spec.platformSpec.vsphere is not set, so the MCO does nothing to it and counts it as reconciled, not skipped (its template is not refreshed)`,
    };
  const architectures = obj(obj(context.stream).architectures);
  if (context.stream != null && !Object.prototype.hasOwnProperty.call(architectures, arch))
    return failed(
      "the boot image stream has no entry for its architecture",
      reconcileError(ms.name, archNotInStream(context.stream, arch)),
    );
  if (context.stream != null && !str(obj(obj(obj(architectures[arch]).artifacts).vmware).release))
    return failed(
      "the boot image stream has no vmware artifact for its architecture",
      reconcileError(ms.name, `${streamNameOf(context.stream)}/${arch}: artifact 'vmware' not found`),
    );
  const credentials = reconcileError(
    ms.name,
    `failed to fetch vsphere-creds Secret during machineset sync: secrets "vsphere-creds" not found`,
  );
  const credsUnknown = "whether the kube-system/vsphere-creds Secret exists is not known to Fleetskew, which does not read Secrets";
  if (infra === undefined)
    return {
      action: "update",
      reason: `${enrolled}; assumed to succeed: the Infrastructure's vCenters and failure domains were not read, and ${credsUnknown}`,
      basis: "assumed",
      ifFails: credentials,
    };
  const ws = obj(obj(ms.providerSpec).workspace);
  if (obj(ms.providerSpec).workspace == null) return crashed("its providerSpec has no workspace", "createNewVMTemplate");
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
