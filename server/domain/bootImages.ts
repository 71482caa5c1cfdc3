/*
 * Which boot image a MachineSet boots from, what release that is, how we know, and what the MCO's
 * boot image controller does with it (docs/openshift.md §15, §18, §19). Pure and total: any input
 * gives a result.
 */
import { selectorMatches } from "./labelSelector";
import { bootImagesSupported } from "./platforms";
import { installVersion } from "./skew";
import { parseOcpVersion } from "./versions";
import { buildFromImageName, catalogKey, displayReference, extractBootImage, obj, type BootImageReference } from "./bootImageReference";
import type { McoDecision, ResolvedBootImage } from "./resolvedBootImage";
import {
  type BootImageCatalog,
  type ClusterBootContext,
  type MachineSetInput,
  OS_ID_LABEL,
  architectureOf,
  emptyCatalog,
  newestRelease,
  ocpFromBuild,
  rpmArchOf,
  streamImage,
} from "./bootImageInputs";
import { awsDecision, azureDecision, crashed, exclude, failed, skip, syncError, vsphereDecision } from "./mcoPlatformDecisions";

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
  if (ms.templateLabels?.[OS_ID_LABEL] === "Windows") return exclude("Windows MachineSets are excluded by the MCO, not counted as skipped");
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
