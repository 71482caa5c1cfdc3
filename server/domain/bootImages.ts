import { selectorMatches, type LabelSelector } from "./labelSelector";
import { installVersion, type HistoryEntry } from "./skew";
import { parseRhcosBuild } from "./versions";

/**
 * Which boot image a MachineSet boots from, what release that is, how we know, and whether the
 * MCO would update it (reference §1.4, §2.2, §3, §4). Pure and total: any input gives a result.
 */
export type BootImageReference =
  | { platform: "AWS"; ami: string | null; region: string | null; via: "id" | "arn" | "filters" | "none" }
  | { platform: "GCP"; image: string | null }
  | { platform: "Azure"; resourceID: string | null; marketplace: { publisher: string; offer: string; sku: string; version: string } | null }
  | { platform: "VSphere"; template: string | null }
  | { platform: "other"; providerKind: string | null };

export type Provenance = "stream" | "image-name" | "catalog" | "install-version" | "unknown";

export type MachineSetInput = {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: { kind: string; name: string }[];
  templateLabels?: Record<string, string>;
  providerSpec: unknown;
};

/** What the fleet has learned elsewhere: image reference → RHCOS build and OCP release (issue: fleet catalog). */
export interface BootImageCatalog {
  lookup(key: string): { rhcosBuild: string; ocpVersion: string | null } | null;
}
export const emptyCatalog: BootImageCatalog = { lookup: () => null };

export type ClusterBootContext = {
  /** The `stream` value of coreos-bootimages, parsed; null when unreadable. */
  stream: unknown;
  /** coreos-bootimages data.releaseVersion. */
  releaseVersion: string | null;
  history: HistoryEntry[] | null | undefined;
  /** Infrastructure status.platformStatus.type. */
  platform: string | null;
  /** MachineConfiguration status.managedBootImagesStatus.machineManagers. */
  machineManagers:
    { resource?: string; apiGroup?: string; selection?: { mode?: string; partial?: { machineResourceSelector?: LabelSelector } } }[] | null;
  /** ClusterVersion status.desired.architecture === "Multi". */
  multiArch?: boolean;
};

export type ResolvedBootImage = {
  machineSet: string;
  reference: BootImageReference;
  /** The reference as one line, e.g. "ami-0a3f… (us-east-1)". */
  display: string;
  /** The catalog key for this reference (platform-qualified), or null when there is nothing to look up. */
  key: string | null;
  rhcosBuild: string | null;
  ocpVersion: string | null;
  provenance: Provenance;
  /** Whether it is the image the cluster's stream currently names; null when that cannot be told. */
  matchesStream: boolean | null;
  mco: { action: "update" | "skip"; reason: string };
  notes: string[];
};

const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export function extractBootImage(providerSpec: unknown): BootImageReference {
  const value = obj(providerSpec);
  const kind = str(value.kind);
  switch (kind) {
    case "AWSMachineProviderConfig": {
      const ami = obj(value.ami);
      const region = str(obj(value.placement).region);
      if (str(ami.id)) return { platform: "AWS", ami: str(ami.id), region, via: "id" };
      return { platform: "AWS", ami: null, region, via: str(ami.arn) ? "arn" : Array.isArray(ami.filters) ? "filters" : "none" };
    }
    case "GCPMachineProviderSpec": {
      const disks = Array.isArray(value.disks) ? value.disks.map(obj) : [];
      const boot = disks.find((d) => d.boot === true) ?? disks[0];
      return { platform: "GCP", image: str(boot?.image) };
    }
    case "AzureMachineProviderSpec": {
      const image = obj(value.image);
      const marketplace =
        str(image.publisher) && str(image.offer)
          ? {
              publisher: String(image.publisher),
              offer: String(image.offer),
              sku: String(image.sku ?? ""),
              version: String(image.version ?? ""),
            }
          : null;
      return { platform: "Azure", resourceID: str(image.resourceID), marketplace };
    }
    case "VSphereMachineProviderSpec":
      return { platform: "VSphere", template: str(value.template) };
    default:
      return { platform: "other", providerKind: kind };
  }
}

export function displayReference(ref: BootImageReference): string {
  switch (ref.platform) {
    case "AWS":
      return ref.ami ? `${ref.ami}${ref.region ? ` (${ref.region})` : ""}` : `AMI by ${ref.via === "none" ? "nothing" : ref.via}`;
    case "GCP":
      return ref.image ?? "no boot disk image";
    case "Azure":
      return ref.marketplace
        ? `${ref.marketplace.publisher}/${ref.marketplace.offer}/${ref.marketplace.sku}:${ref.marketplace.version}`
        : (ref.resourceID ?? "no image");
    case "VSphere":
      return ref.template ? `template ${ref.template}` : "no template";
    default:
      return ref.providerKind ? `${ref.providerKind} (boot image not resolvable)` : "unknown provider (boot image not resolvable)";
  }
}

export function catalogKey(ref: BootImageReference): string | null {
  if (ref.platform === "AWS" && ref.ami) return `aws:${ref.region ?? "?"}:${ref.ami}`;
  if (ref.platform === "GCP" && ref.image) return `gcp:${ref.image}`;
  if (ref.platform === "Azure" && ref.marketplace)
    return `azure:${ref.marketplace.publisher}/${ref.marketplace.offer}/${ref.marketplace.sku}:${ref.marketplace.version}`;
  if (ref.platform === "Azure" && ref.resourceID) return `azure:${ref.resourceID}`;
  return null;
}

/** Go arch names (MachineSet annotation) → stream arch keys. */
export function architectureOf(annotations: Record<string, string> | undefined): string | null {
  const labels = annotations?.["capacity.cluster-autoscaler.kubernetes.io/labels"];
  const m = labels ? /kubernetes\.io\/arch=([\w-]+)/.exec(labels) : null;
  if (!m) return null;
  return ({ amd64: "x86_64", arm64: "aarch64", ppc64le: "ppc64le", s390x: "s390x" } as Record<string, string>)[m[1]!] ?? m[1]!;
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

/** RHCOS builds encoded in image names: GCP `rhcos-412-86-202212081411-0-gcp-x86-64`, Azure marketplace `412.86.20230131`. */
export function buildFromImageName(ref: BootImageReference): string | null {
  if (ref.platform === "GCP" && ref.image) {
    const m = /rhcos-(\d+)-(\d+)-(\d{8,12})-(\d+)-gcp/.exec(ref.image);
    if (m && parseRhcosBuild(`${m[1]}.${m[2]}.${m[3]}-${m[4]}`)) return `${m[1]}.${m[2]}.${m[3]}-${m[4]}`;
  }
  if (ref.platform === "Azure" && ref.marketplace) {
    const m = /^(\d+)\.(\d+)\.(\d{8})/.exec(ref.marketplace.version);
    if (m) return `${m[1]}.${m[2]}.${m[3]}`;
  }
  return null;
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

const SUPPORTED = new Set(["AWS", "GCP", "Azure", "VSphere"]);

/** Would the MCO's boot-image controller update this MachineSet, and if not, why (reference §1.4, §4). */
export function mcoDecision(
  ms: MachineSetInput,
  ref: BootImageReference,
  context: ClusterBootContext,
  arch: string | null,
): { action: "update" | "skip"; reason: string } {
  const skip = (reason: string) => ({ action: "skip" as const, reason });
  const platform = context.platform ?? (ref.platform !== "other" ? ref.platform : null);
  if (!platform || !SUPPORTED.has(platform)) return skip(`the MCO does not manage boot images on ${platform ?? "this platform"}`);
  const manager = (context.machineManagers ?? []).find(
    (m) => m.resource === "machinesets" && (m.apiGroup ?? "machine.openshift.io") === "machine.openshift.io",
  );
  const mode = manager?.selection?.mode ?? "None";
  if (mode === "None") return skip("boot image updates are off for MachineSets (managedBootImages: None)");
  if (mode === "Partial" && !selectorMatches(manager?.selection?.partial?.machineResourceSelector, ms.labels)) {
    return skip("not selected by the Partial machineResourceSelector");
  }
  if (ms.ownerReferences && ms.ownerReferences.length > 0) {
    const o = ms.ownerReferences[0]!;
    return skip(`has an owner reference (${o.kind}/${o.name}); the MCO leaves it to that owner`);
  }
  if (ms.templateLabels?.["machine.openshift.io/os-id"] === "Windows") return skip("Windows MachineSets are not managed");
  const osStream = ms.labels?.["machineconfiguration.openshift.io/osstream"];
  if (osStream && osStream !== "rhel-9") return skip(`OS stream ${osStream} is not the default stream`);
  if (context.multiArch && !arch) return skip("multi-architecture cluster and no architecture annotation on the MachineSet");
  if (ref.platform === "AWS" && !ref.ami) return skip(`ami.id is not set (the AMI is chosen by ${ref.via}), so the MCO skips it`);
  if (ref.platform === "AWS" && !streamImage(context.stream, ref, arch ?? "x86_64"))
    return skip(`region ${ref.region ?? "(none)"} is not in the cluster's boot image stream`);
  if (ref.platform === "GCP" && !(ref.image ?? "").startsWith("projects/rhcos-cloud/global/images"))
    return skip("the image is not an RHCOS image from projects/rhcos-cloud");
  return {
    action: "update",
    reason: mode === "Partial" ? "selected by the Partial machineResourceSelector" : "all MachineSets are managed (mode All)",
  };
}

export function resolveBootImage(
  ms: MachineSetInput,
  context: ClusterBootContext,
  catalog: BootImageCatalog = emptyCatalog,
): ResolvedBootImage {
  const reference = extractBootImage(ms.providerSpec);
  const arch = architectureOf(ms.annotations);
  const notes: string[] = [];
  const key = catalogKey(reference);
  const base = {
    machineSet: ms.name,
    reference,
    display: displayReference(reference),
    key,
    mco: mcoDecision(ms, reference, context, arch),
    notes,
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
  const fromStream = streamImage(context.stream, reference, arch ?? "x86_64");
  const sameAsStream =
    fromStream && reference.platform !== "VSphere"
      ? (reference.platform === "AWS" && reference.ami === fromStream.image) ||
        (reference.platform === "GCP" && reference.image === fromStream.image)
      : null;
  if (!arch) notes.push("no architecture annotation; assumed x86_64");
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
