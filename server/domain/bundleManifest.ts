import { createHash } from "node:crypto";
import { z } from "zod";
import type { PrefetchImage } from "./prefetchDisk";
import { parseOcpVersion } from "./versions";

/**
 * Upgrade bundles for disconnected sites (docs/bundle-format.md): the manifest, its digest, and the
 * names Fleetskew gives what it pins. Pure.
 */

const GiB = 1024 ** 3;

// The PinnedImageSet API's own image reference rules (ImageDigestFormat): host[:port][/namespace]/name@sha256:<64 hex>, ≤ 447 chars.
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const NAME = /^([a-zA-Z0-9-]+\.)+[a-zA-Z0-9-]+(:[0-9]{2,5})?\/([a-zA-Z0-9-_]{0,61}\/)?[a-zA-Z0-9-_.]*?$/;

/** Why an image reference is not one the cluster would pin; null when it is fine. */
export function imageReferenceProblem(ref: string): string | null {
  if (ref.length === 0 || ref.length > 447) return "must be 1 to 447 characters long";
  const parts = ref.split("@");
  if (parts.length !== 2) {
    const tag = /:([^/:]+)$/.exec(ref)?.[1];
    return tag ? `names the tag "${tag}"; a bundle pins images by digest (…@sha256:<64 hex>)` : "has no @sha256:<digest>";
  }
  if (!DIGEST.test(parts[1]!)) return "must end in @sha256: and 64 lowercase hex characters";
  if (!NAME.test(parts[0]!)) return "must be host[:port][/namespace]/name before the digest";
  return null;
}

const ImageRef = z.string().superRefine((ref, ctx) => {
  const problem = imageReferenceProblem(ref);
  if (problem) ctx.addIssue({ code: "custom", message: `"${ref.length > 120 ? `${ref.slice(0, 117)}…` : ref}" ${problem}` });
});

/**
 * The refusal of a manifest whose images[] lacks the release image. Manifests vetted before this
 * rule hit it on upload, and editing one changes its digest, so it says what to do: rebuild, vet again.
 */
export const RELEASE_IMAGE_MISSING =
  "does not list the release image (release.image). Fleetskew pins the release image with the others and counts its size in the disk check, " +
  "so images[] must list it with its sizeBytes. The manifest cannot be fixed by editing it (that changes its digest, and the vetting no longer applies): " +
  "the bundle must be rebuilt with the release image listed in images[], with its size, and the new manifest vetted again";

/** Images one manifest may list: what one PinnedImageSet takes. */
export const MAX_IMAGES = 500;
/** Layers one image may list: far above any real image (OCI images rarely pass 127). */
export const MAX_LAYERS = 1000;

export const BundleManifestSchema = z
  .strictObject({
    apiVersion: z.literal("fleetskew.io/v1", { error: 'must be "fleetskew.io/v1"' }),
    kind: z.literal("UpgradeBundle", { error: 'must be "UpgradeBundle"' }),
    release: z.strictObject({
      version: z
        .string()
        .regex(/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/, "must be an OpenShift release like 4.19.11")
        .refine((v) => parseOcpVersion(v) !== null, "must be an OpenShift release like 4.19.11"),
      image: ImageRef,
    }),
    images: z
      .array(
        z
          .strictObject({
            name: ImageRef,
            // 1 TiB: far above any container image, and 500 of them still add up exactly in a JavaScript number.
            sizeBytes: z
              .number()
              .int("must be a whole number of bytes")
              .positive("must be more than 0")
              .max(2 ** 40, "must be at most 1 TiB"),
            /**
             * Optional (manifests made before it stay valid): the image's layers as its manifest lists
             * them. The MCO counts each layer digest once across the images it checks together, so
             * images sharing base layers need less disk than their sizes added up (docs/openshift.md §21.5).
             */
            layers: z
              .array(
                z.strictObject({
                  digest: z.string().regex(/^sha256:[a-f0-9]{64}$/, "must be sha256: and 64 lowercase hex characters"),
                  sizeBytes: z
                    .number()
                    .int("must be a whole number of bytes")
                    .nonnegative("must be 0 or more")
                    .max(2 ** 40, "must be at most 1 TiB"),
                }),
              )
              .min(1, "must list at least one layer when given")
              .max(MAX_LAYERS, `may list at most ${MAX_LAYERS} layers`)
              .optional(),
          })
          .superRefine((image, ctx) => {
            if (!image.layers) return;
            const sum = image.layers.reduce((n, l) => n + l.sizeBytes, 0);
            if (sum !== image.sizeBytes)
              ctx.addIssue({
                code: "custom",
                path: ["sizeBytes"],
                message: `must be the sum of the image's layers (${sum}) when layers are listed`,
              });
          }),
      )
      .min(1, "must list at least one image")
      .max(MAX_IMAGES, `may list at most ${MAX_IMAGES} images (the PinnedImageSet limit)`)
      .superRefine((images, ctx) => {
        const seen = new Set<string>();
        images.forEach((image, i) => {
          if (seen.has(image.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: `${image.name} is listed twice` });
          seen.add(image.name);
        });
      }),
    createdAt: z.iso.datetime({ offset: true, error: "must be an ISO 8601 time, e.g. 2026-11-01T09:00:00Z" }),
  })
  // The release image is pinned too, so its size must count in the disk check: it is listed with the others, once.
  .superRefine((m, ctx) => {
    if (m.release?.image && Array.isArray(m.images) && !m.images.some((i) => i?.name === m.release.image))
      ctx.addIssue({
        code: "custom",
        path: ["images"],
        message: RELEASE_IMAGE_MISSING,
      });
  });

export type BundleManifest = z.infer<typeof BundleManifestSchema>;

/** The digest a bundle is vetted and known by: sha256 of the manifest file exactly as uploaded. */
export const manifestDigest = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

export const SHA256_HEX = /^[a-f0-9]{64}$/;

/** A digest as people paste it: optional "sha256:" prefix, any case, surrounding space. */
export function normalizeDigest(text: string): string | null {
  const hex = text
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, "");
  return SHA256_HEX.test(hex) ? hex : null;
}

export type ManifestCheck = { ok: true; manifest: BundleManifest } | { ok: false; problems: string[] };

/** Parses and validates a manifest's text; every problem is named with where it is. */
export function checkManifest(text: string): ManifestCheck {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`the manifest is not valid JSON: ${(error as Error).message}`] };
  }
  // Checked before the schema: a list of a million entries would otherwise be judged entry by entry.
  const images = (data as { images?: unknown } | null)?.images;
  if (Array.isArray(images) && images.length > MAX_IMAGES)
    return {
      ok: false,
      problems: [`images: may list at most ${MAX_IMAGES} images (the PinnedImageSet limit); this one lists ${images.length}`],
    };
  // Likewise for layers: 500 images of a million layers each would be judged layer by layer.
  if (Array.isArray(images)) {
    const at = images.findIndex(
      (i) => Array.isArray((i as { layers?: unknown } | null)?.layers) && (i as { layers: unknown[] }).layers.length > MAX_LAYERS,
    );
    if (at >= 0) return { ok: false, problems: [`images[${at}].layers: may list at most ${MAX_LAYERS} layers`] };
  }
  const parsed = BundleManifestSchema.safeParse(data);
  if (parsed.success) return { ok: true, manifest: parsed.data };
  const short = (text: string) => (text.length > 1000 ? `${text.slice(0, 1000)}…` : text);
  return {
    ok: false,
    problems: parsed.error.issues.slice(0, 20).map((issue) => {
      const where = issue.path.length ? issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("") : "";
      return short(`${where ? where.replace(/^\./, "") : "the manifest"}: ${issue.message}`);
    }),
  };
}

/**
 * The size of everything pinned: images[] lists the release image too (the manifest rule), each
 * image once. A manifest stored before that rule may lack it; its total then leaves it out.
 */
export const totalBytes = (m: BundleManifest) => m.images.reduce((sum, i) => sum + i.sizeBytes, 0);

/**
 * What the MCO's disk check needs for this bundle's set on a node that holds `onNode` already
 * (`checkImagePayloadStorage`, see prefetchDisk.ts): each layer counted once, images on the node not at all.
 */
export function prefetchImages(m: BundleManifest): PrefetchImage[] {
  const listed = new Map(m.images.map((i) => [i.name, i]));
  return pinnedImagesOf(m).map((name) => listed.get(name) ?? { name, sizeBytes: 0 });
}

/** Every image the cluster should hold for the update: the release image and the bundle's list. */
export function pinnedImagesOf(m: BundleManifest): string[] {
  return [...new Set([m.release.image, ...m.images.map((i) => i.name)])];
}

/** The PinnedImageSet name for one pool: bundle release and digest, so two bundles never share one. */
export function pinnedImageSetName(m: BundleManifest, digest: string, pool: string): string {
  const name = `fleetskew-${m.release.version.replace(/\./g, "-")}-${digest.slice(0, 8)}-${pool}`;
  return name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 253);
}

export const BUNDLE_LABEL = "fleetskew.io/bundle";
export const RELEASE_LABEL = "fleetskew.io/release";

export const formatBytes = (n: number) =>
  n >= GiB
    ? `${(n / GiB).toFixed(1)} GiB`
    : n >= 1024 ** 2
      ? `${(n / 1024 ** 2).toFixed(0)} MiB`
      : `${Math.max(0, Math.round(n / 1024))} KiB`;
