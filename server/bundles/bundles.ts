import type { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { checkManifest, manifestDigest, normalizeDigest, prefetchImages, totalBytes, type BundleManifest } from "../domain/bundleManifest";
import { distinctBytes } from "../domain/prefetchDisk";
import { UserFacingError } from "../errors";
import { recordAudit } from "../store/audit";
import {
  AlreadyVettedError,
  findBundle,
  findVettedBundle,
  insertVettedBundle,
  listApplications,
  listBundles,
  listVettedBundles,
  saveBundle,
  type BundleRecord,
  type VettedBundleRecord,
} from "../store/bundles";
import type { UploadedBundle, VetBundleSchema } from "./contract";

export type { UploadedBundle };

/** A manifest lists images, not their contents: 2 MiB is far more than 500 references need. */
export const MAX_MANIFEST_BYTES = 2 * 1024 * 1024;

/** An approver or admin vouches for a manifest by its digest. */
export async function vetBundle(input: z.infer<typeof VetBundleSchema>, actor: Actor): Promise<VettedBundleRecord> {
  const digest = normalizeDigest(input.digest);
  if (!digest)
    throw new UserFacingError(
      400,
      "The digest must be 64 hexadecimal characters (the output of sha256sum on the manifest file), optionally after sha256:",
    );
  try {
    return await insertVettedBundle({ digest, note: input.note, vettedBy: actor.user.username }, auditActor(actor));
  } catch (error) {
    if (error instanceof AlreadyVettedError)
      throw new UserFacingError(409, `sha256:${digest} is already vetted (by ${error.existing.vettedBy}: "${error.existing.note}")`);
    throw error;
  }
}

export { listVettedBundles };

/** Thrown for a refused upload; carries the digest so a screen can show it for vetting. */
export class BundleRefusedError extends UserFacingError {
  constructor(
    readonly digest: string,
    readonly problems: string[],
    message: string,
  ) {
    super(422, message, {}, { digest: `sha256:${digest}`, problems });
  }
}

/**
 * A technician uploads a manifest file. It is accepted only when its digest was vetted and it is
 * a valid manifest; otherwise the refusal says exactly why (and is audited as denied).
 */
export async function uploadBundle(bytes: Uint8Array, actor: Actor): Promise<UploadedBundle> {
  if (bytes.length === 0) throw new UserFacingError(400, "The manifest file is empty");
  if (bytes.length > MAX_MANIFEST_BYTES)
    throw new UserFacingError(413, "The manifest file is larger than 2 MiB; a bundle manifest lists images, not their contents");
  const digest = manifestDigest(bytes);
  const vetted = await findVettedBundle(digest);
  const check = checkManifest(Buffer.from(bytes).toString("utf8"));
  if (!vetted || !check.ok) {
    const problems = check.ok ? [] : check.problems;
    const reasons = [
      ...(vetted ? [] : [`its digest sha256:${digest} has not been vetted: ask an approver to vet it under Bundles`]),
      ...problems,
    ];
    await recordAudit({
      ...auditActor(actor),
      action: "bundle.upload",
      targetType: "bundle",
      targetId: `sha256:${digest}`,
      outcome: "denied",
      summary: `upload of bundle sha256:${digest.slice(0, 12)}… refused: ${reasons[0]}`,
      details: { vetted: !!vetted, problems },
    });
    throw new BundleRefusedError(digest, problems, `The bundle was refused: ${reasons.join("; ")}.`);
  }
  const manifest = check.manifest;
  const record = await saveBundle(
    {
      digest,
      manifest,
      releaseVersion: manifest.release.version,
      releaseImage: manifest.release.image,
      imageCount: manifest.images.length,
      totalBytes: totalBytes(manifest),
      uploadedBy: actor.user.username,
    },
    auditActor(actor),
  );
  return { ...record, manifest, vetted, distinctBytes: distinctBytes(prefetchImages(manifest)) };
}

export async function bundleOrThrow(digestText: string): Promise<BundleRecord & { manifest: BundleManifest }> {
  const digest = normalizeDigest(digestText);
  const bundle = digest ? await findBundle(digest) : null;
  if (!bundle) throw new UserFacingError(404, `no uploaded bundle with digest ${digestText}; upload its manifest first`);
  return bundle as BundleRecord & { manifest: BundleManifest };
}

/** Bundles uploaded so far (newest first), each with the manifest it was accepted with. */
export async function listBundlesWithManifests(): Promise<(BundleRecord & { manifest: BundleManifest })[]> {
  return (await listBundles()) as (BundleRecord & { manifest: BundleManifest })[];
}

/** The applications of bundles to clusters (newest first). */
export { listApplications };
