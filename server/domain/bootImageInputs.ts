/*
 * What deciding a MachineSet's boot image takes: the MachineSet, the cluster's context (its boot
 * image stream, release, platform, machine managers), the fleet's catalog, and what the stream names
 * for an architecture (docs/openshift.md §15.3, §18). Pure and total.
 */
import { type LabelSelector } from "./labelSelector";
import { type HistoryEntry } from "./skew";
import { parseRhcosBuild } from "./versions";
import { obj, str, type BootImageReference } from "./bootImageReference";

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
export const ARCH_LABEL = "kubernetes.io/arch=";
/** Go architecture names the MCO accepts → the RPM names stream metadata uses (stream-metadata-go `arch.RpmArch`). */
export const RPM_ARCH: Record<string, string> = { amd64: "x86_64", arm64: "aarch64", ppc64le: "ppc64le", s390x: "s390x" };
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

export type StreamImage = { image: string; release: string };

/** The image the stream names for this platform/arch/region, if any. */
export function streamImage(stream: unknown, ref: BootImageReference, arch: string): StreamImage | null {
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
export function streamAmis(stream: unknown): Set<string> {
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
export const ocpFromBuild = (build: string | null) => {
  if (!build) return null;
  const legacy = /^4(\d{2})\.\d{2,3}\.\d{8}/.exec(build);
  return parseRhcosBuild(build)?.ocpMinor ?? (legacy ? `4.${Number(legacy[1])}` : null);
};

export const newestRelease = (context: ClusterBootContext) => context.release ?? context.history?.[0]?.version ?? null;
