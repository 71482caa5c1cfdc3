/**
 * What the upgrade bundle endpoints of /api/v1 take and send (docs/api.md#upgrade-bundles), defined
 * once: route handlers bind to these endpoints, the browser calls them, the OpenAPI document is made
 * from them. Imports zod and pure modules only, so the browser may import it.
 */
import { z } from "zod";
import { endpoint, isoDate } from "../http/endpoint";
import { ReadinessAnswerSchema } from "../fleet/contract";

export const VetBundleSchema = z.object({
  digest: z.string().trim().min(1, "paste the bundle's sha256 digest"),
  note: z.string().trim().min(3, "say in a few words why this bundle is trusted").max(500, "the note may be at most 500 characters"),
});
export type VetBundleRequest = z.input<typeof VetBundleSchema>;

export const ApplyBundleSchema = z.object({
  digest: z.string().trim().min(1, "name the bundle by its digest"),
  cluster: z.string().trim().min(1, "choose a cluster"),
  /** The keys of the warnings the technician read and accepts (each precheck's `key`). */
  confirmedWarnings: z
    .array(z.string().trim().min(1).max(300), { error: "confirmedWarnings must be a list of precheck keys" })
    .max(200, "confirmedWarnings may list at most 200 keys")
    .default([]),
});
export type ApplyBundleRequest = z.input<typeof ApplyBundleSchema>;

export const StartUpgradeSchema = z.object({
  /** An admin's written reason for starting despite failing readiness checks. */
  overrideReason: z.string().trim().max(2000).optional(),
});
export type StartUpgradeRequest = z.input<typeof StartUpgradeSchema>;

/** The upload form: the manifest file, exactly as vetted (its sha256 is the digest). */
const UploadForm = z.object({ manifest: z.file().meta({ description: "The manifest file (JSON, at most 2 MiB)" }) });

const PrecheckQuery = z.object({
  cluster: z.string({ error: "name the cluster: ?cluster=NAME" }).trim().min(1, "name the cluster: ?cluster=NAME"),
});

const Sha256Hex = z.string().meta({ id: "BundleDigest", description: "The manifest file's sha256, 64 lowercase hexadecimal characters" });

/** A digest vetted as trusted, by whom and why. */
export const VettedBundleSchema = z
  .strictObject({ digest: Sha256Hex, note: z.string(), vettedBy: z.string(), vettedAt: isoDate() })
  .meta({ id: "VettedBundle" });
export type VettedBundleRecord = z.output<typeof VettedBundleSchema>;

/** A manifest as it was accepted (docs/bundle-format.md). */
export const BundleManifestAnswer = z
  .strictObject({
    apiVersion: z.literal("fleetskew.io/v1"),
    kind: z.literal("UpgradeBundle"),
    release: z.strictObject({ version: z.string(), image: z.string() }),
    images: z.array(
      z.strictObject({
        name: z.string(),
        sizeBytes: z.number().int(),
        layers: z.array(z.strictObject({ digest: z.string(), sizeBytes: z.number().int() })).optional(),
      }),
    ),
    createdAt: z.string(),
  })
  .meta({ id: "BundleManifest" });

const bundleFields = () => ({
  digest: Sha256Hex,
  manifest: BundleManifestAnswer,
  releaseVersion: z.string(),
  releaseImage: z.string(),
  imageCount: z.number().int(),
  totalBytes: z.number().int().meta({ description: "The images' sizes added up" }),
  uploadedBy: z.string(),
  uploadedAt: isoDate(),
});

/** An uploaded bundle. */
export const BundleSchema = z.strictObject(bundleFields()).meta({ id: "Bundle" });
export type BundleRecord = z.output<typeof BundleSchema>;

/** An upload just accepted: the bundle, its vetting, and its size as the MCO's disk check counts it. */
export const UploadedBundleSchema = z.strictObject({
  ...bundleFields(),
  vetted: VettedBundleSchema,
  distinctBytes: z
    .number()
    .int()
    .meta({ description: "The images' bytes with each layer counted once, as the MCO's disk check counts them" }),
});
export type UploadedBundle = z.output<typeof UploadedBundleSchema>;

export const APPLICATION_STATES = ["applying", "preloading", "upgrading", "upgraded", "unpinning", "unpinned"] as const;

/** A bundle applied to a cluster: its PinnedImageSets, who applied it, where the upgrade stands. */
export const ApplicationSchema = z
  .strictObject({
    id: z.string(),
    bundleDigest: Sha256Hex,
    releaseVersion: z.string(),
    releaseImage: z.string(),
    clusterId: z.string(),
    cluster: z.string(),
    state: z.enum(APPLICATION_STATES),
    pools: z.array(
      z.strictObject({
        pool: z.string(),
        set: z.string().meta({ description: "The PinnedImageSet's name" }),
        labels: z.record(z.string(), z.string()).optional().meta({ description: "The labels that aim the set at the pool" }),
      }),
    ),
    confirmedWarnings: z.array(z.string()).meta({ description: "The titles of the warnings confirmed when it was applied" }),
    createdBy: z.string(),
    createdAt: isoDate(),
    updatedAt: isoDate(),
    lastError: z.string().nullable().meta({ description: "Why the last background attempt failed; tried again every 5 minutes" }),
    upgradeStartedBy: z.string().nullable(),
    upgradeStartedAt: isoDate().nullable(),
    overrideReason: z.string().nullable(),
    upgradedAt: isoDate().nullable(),
    unpinnedAt: isoDate().nullable(),
  })
  .meta({ id: "BundleApplication" });
export type ApplicationRecord = z.output<typeof ApplicationSchema>;
export type ApplicationState = ApplicationRecord["state"];

export const PrecheckStatusSchema = z.enum(["pass", "warn", "fail"]);
export type PrecheckStatus = z.output<typeof PrecheckStatusSchema>;

/** One finding of the prechecks. */
export const PrecheckSchema = z
  .strictObject({
    id: z.string(),
    key: z.string().meta({
      description: "This finding's identity (the check, its pool, what it names): a warning is confirmed by its key",
    }),
    pool: z.string().nullable().meta({ description: "The pool the check is about; null for the whole cluster" }),
    title: z.string(),
    status: PrecheckStatusSchema,
    detail: z.string(),
    remedy: z.string().nullable(),
    items: z.array(z.string()).meta({ description: "Nodes, pods or sets the check names" }),
  })
  .meta({ id: "Precheck" });
export type Precheck = z.output<typeof PrecheckSchema>;

export const PrecheckResultSchema = z.strictObject({
  cluster: z.string(),
  bundle: z.strictObject({
    digest: z.string().meta({ description: "sha256:…" }),
    release: z.string(),
    images: z.number().int(),
    size: z.string().meta({ description: "The images' sizes added up, in words (12.3 GiB)" }),
  }),
  checks: z.array(PrecheckSchema),
  canApply: z.boolean(),
  needsConfirmation: z.boolean(),
});
export type PrecheckResult = z.output<typeof PrecheckResultSchema>;

export const NodeProgressSchema = z.strictObject({
  node: z.string(),
  pool: z.string(),
  state: z.enum(["waiting", "pulling", "done", "failed"]),
  retrying: z
    .boolean()
    .optional()
    .meta({ description: "Pulling in another attempt after the MCO's prefetch timeout (or another error) ended the last one" }),
  label: z.string().meta({ description: 'Plain words: "pulling images", "failed: not enough disk"' }),
  error: z.string().nullable(),
  remedy: z.string().nullable(),
});
export type NodeProgress = z.output<typeof NodeProgressSchema>;

export const ProgressSummarySchema = z.strictObject({
  total: z.number().int(),
  done: z.number().int(),
  pulling: z.number().int(),
  waiting: z.number().int(),
  failed: z.number().int(),
  retrying: z.number().int(),
  allDone: z.boolean(),
});
export type ProgressSummary = z.output<typeof ProgressSummarySchema>;

export const UpgradeStateSchema = z.strictObject({
  current: z.string().nullable(),
  desired: z.string().nullable(),
  completed: z.boolean(),
  progressing: z.string().nullable(),
  refused: z.string().nullable().meta({ description: "ReleaseAccepted=False: why the CVO refused the release" }),
});
export type UpgradeState = z.output<typeof UpgradeStateSchema>;

export const ApplicationProgressSchema = z.strictObject({
  application: ApplicationSchema,
  manifest: z.strictObject({ images: z.number().int(), size: z.string(), release: z.string(), releaseImage: z.string() }),
  source: z
    .enum(["live", "stored"])
    .meta({ description: "live: read from the cluster now; stored: the last sweep's snapshot, the cluster being unreachable" }),
  observedAt: isoDate(),
  sourceNote: z.string().nullable(),
  nodes: z.array(NodeProgressSchema),
  summary: ProgressSummarySchema,
  missingSets: z.array(z.string()),
  /** The cluster's readiness for the bundle's release (as GET /api/v1/clusters/{name}/readiness gives it). */
  readiness: ReadinessAnswerSchema.nullable(),
  upgrade: UpgradeStateSchema,
  blockers: z.array(z.string()).meta({ description: 'Why "Start upgrade" is not available yet, in words; empty when it is' }),
  overridable: z.boolean().meta({
    description: "Every blocker is a failing readiness check, which an admin may override with a written reason",
  }),
});
export type ApplicationProgress = z.output<typeof ApplicationProgressSchema>;

const ApplicationChangedSchema = z.strictObject({ application: ApplicationSchema }).meta({ id: "BundleApplicationChanged" });
export type ApplicationChanged = z.output<typeof ApplicationChangedSchema>;

/** What a refused apply (409) carries beside `error`: the prechecks as they are now, and the warnings not yet confirmed. */
export const ApplyRefusalSchema = z.object({
  checks: z.array(PrecheckSchema).optional(),
  needsConfirmation: z.boolean().optional(),
  unconfirmed: z.array(z.string()).optional(),
});
export type ApplyRefusal = z.output<typeof ApplyRefusalSchema>;
/** What a refused upload (422) carries beside `error`: the digest of the file as uploaded, and what is wrong in it. */
export const UploadRefusalSchema = z.object({ digest: z.string().optional(), problems: z.array(z.string()).optional() });
export type UploadRefusal = z.output<typeof UploadRefusalSchema>;

const ApplicationParams = z.object({ id: z.string().min(1) });

export const bundleEndpoints = {
  list: endpoint({
    method: "GET",
    path: "/api/v1/bundles",
    summary: "The bundles uploaded so far, each with its manifest",
    description: "Only vetted, valid manifests are kept.",
    access: ["technician", "approver"],
    answer: z.strictObject({ bundles: z.array(BundleSchema) }),
  }),
  upload: endpoint({
    method: "POST",
    path: "/api/v1/bundles",
    summary: "Upload a bundle manifest",
    description:
      "multipart/form-data with the file in `manifest`. Accepted only when its digest was vetted and it is a valid manifest; otherwise 422 with `digest` (sha256:… of the file as uploaded) and `problems`.",
    access: ["technician"],
    form: UploadForm,
    status: 201,
    errors: [422],
    answer: z.strictObject({ bundle: UploadedBundleSchema }),
  }),
  vetted: endpoint({
    method: "GET",
    path: "/api/v1/bundles/vetted",
    summary: "The manifest digests vetted as trusted, with who vetted them and why",
    access: ["technician", "approver"],
    answer: z.strictObject({ vetted: z.array(VettedBundleSchema) }),
  }),
  vet: endpoint({
    method: "POST",
    path: "/api/v1/bundles/vetted",
    summary: "Vet a manifest by its sha256 digest",
    description: "The `sha256:` prefix is optional; 409 when the digest is already vetted.",
    access: ["approver"],
    personOnly: "vet a bundle as trusted",
    body: VetBundleSchema,
    status: 201,
    errors: [409],
    answer: z.strictObject({ vetted: VettedBundleSchema }),
  }),
  precheck: endpoint({
    method: "GET",
    path: "/api/v1/bundles/{digest}/precheck",
    summary: "What stands in the way of applying a bundle to ?cluster=, read live from the cluster",
    access: ["technician"],
    params: z.object({ digest: z.string().min(1) }),
    query: PrecheckQuery,
    work: { kind: "precheck" },
    answer: PrecheckResultSchema,
  }),
  applications: endpoint({
    method: "GET",
    path: "/api/v1/bundle-applications",
    summary: "Every application of a bundle to a cluster, newest first",
    access: "any",
    answer: z.strictObject({ applications: z.array(ApplicationSchema) }),
  }),
  apply: endpoint({
    method: "POST",
    path: "/api/v1/bundle-applications",
    summary: "Apply a bundle to a cluster: its PinnedImageSets are created",
    description:
      "201 when applied now, 200 (the same answer) when it already was. The prechecks run again: 409 with `checks` when one fails, or with `checks`, `needsConfirmation: true` and `unconfirmed` (their keys) when a warning's key is not in `confirmedWarnings`.",
    access: ["technician"],
    body: ApplyBundleSchema,
    status: 201,
    errors: [409],
    answer: ApplicationChangedSchema,
  }),
  application: endpoint({
    method: "GET",
    path: "/api/v1/bundle-applications/{id}",
    summary: "Where an application stands: every node's pre-load, readiness for the release, the upgrade and what blocks it",
    description: "Read live from the cluster; when it cannot be read, from its last sweep (`source: stored`, with `sourceNote`).",
    access: "any",
    params: ApplicationParams,
    answer: ApplicationProgressSchema,
  }),
  startUpgrade: endpoint({
    method: "POST",
    path: "/api/v1/bundle-applications/{id}/start-upgrade",
    summary: "Set ClusterVersion spec.desiredUpdate to the bundle's release",
    description:
      "409 with `blockers` and `overridable` while anything blocks it; only an admin may override failing readiness checks, with an `overrideReason` of at least 10 characters. 502 when the cluster refused the write; 503 with `startConfirmed: false` when it may have taken it.",
    access: ["technician"],
    params: ApplicationParams,
    body: StartUpgradeSchema,
    errors: [409, 502],
    answer: ApplicationChangedSchema,
  }),
  unpin: endpoint({
    method: "POST",
    path: "/api/v1/bundle-applications/{id}/unpin",
    summary: "Delete the application's PinnedImageSets from the cluster",
    description: "After the upgrade, or to give up a pre-load. 409 in another state; 502 when the cluster refused.",
    access: ["technician"],
    params: ApplicationParams,
    errors: [409, 502],
    answer: ApplicationChangedSchema,
  }),
};

export type BundleList = z.output<typeof bundleEndpoints.list.answer>;
export type BundleUploaded = z.output<typeof bundleEndpoints.upload.answer>;
export type VettedList = z.output<typeof bundleEndpoints.vetted.answer>;
export type BundleVetted = z.output<typeof bundleEndpoints.vet.answer>;
export type ApplicationList = z.output<typeof bundleEndpoints.applications.answer>;
