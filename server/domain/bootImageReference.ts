import { z } from "zod";
import { parseRhcosBuild } from "./versions";

/**
 * Where a MachineSet says it boots from, read from its providerSpec as the MCO reads it
 * (docs/openshift.md §19). Pure and total: any providerSpec gives a reference. The schema is the
 * one definition: snapshots are stored with it and decoded by it (server/domain/snapshot.ts).
 */
export const BootImageReferenceSchema = z.discriminatedUnion("platform", [
  z.object({
    platform: z.literal("AWS"),
    ami: z.string().nullable(),
    region: z.string().nullable(),
    via: z.enum(["id", "arn", "filters", "none"]),
  }),
  z.object({ platform: z.literal("GCP"), image: z.string().nullable() }),
  z.object({
    platform: z.literal("Azure"),
    resourceID: z.string().nullable(),
    marketplace: z.object({ publisher: z.string(), offer: z.string(), sku: z.string(), version: z.string() }).nullable(),
    /** image.type: ID, MarketplaceNoPlan or MarketplaceWithPlan. */
    type: z.string().nullable().optional(),
  }),
  z.object({ platform: z.literal("VSphere"), template: z.string().nullable() }),
  z.object({ platform: z.literal("other"), providerKind: z.string().nullable() }),
]);
export type BootImageReference = z.output<typeof BootImageReferenceSchema>;

export const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
export const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

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
      return { platform: "Azure", resourceID: str(image.resourceID), marketplace, type: str(image.type) };
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
