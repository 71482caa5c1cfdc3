/**
 * What the cluster-registration endpoints of /api/v1 take and send, defined once: route handlers
 * bind to these endpoints, the feature functions parse with these schemas, the browser calls them
 * and the OpenAPI document is made from them. Imports zod and pure modules only, so the browser
 * may import it.
 */
import { z } from "zod";
import type { SkewStatus } from "../domain/clusterSkew";
import { endpoint, isoDate } from "../http/endpoint";

const MAX_KUBECONFIG = 512 * 1024;
/** A registration's body: a kubeconfig of up to 512 KiB, JSON-escaped, and the fields around it. */
const REGISTRATION_MAX_BODY_BYTES = 600 * 1024;

export const ClusterNameSchema = z
  .string()
  .trim()
  .min(1, "Name is required")
  .max(63, "Name must be at most 63 characters")
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    "Name may use lower-case letters, digits and dashes, and must start and end with a letter or digit",
  )
  // /api/v1/clusters/import is the offline import, so a cluster of that name could not be addressed.
  .refine((name) => name !== "import", "The name import is reserved; choose another")
  .meta({ id: "ClusterName" });

const LabelRecord = z
  .record(
    z.string().regex(/^[\w./-]{1,63}$/, "label keys may use letters, digits, '.', '/', '-' and '_'"),
    z.string().max(63, "label values are at most 63 characters"),
  )
  .meta({ id: "Labels", description: 'key: value; sent as text, "env=prod, site=plant-3" is read too' });

/** Cluster labels: a JSON object, or the text a person types, "env=prod, site=plant-3". */
export const Labels = z.preprocess((value: Record<string, string> | string, ctx) => {
  if (typeof value !== "string") return value;
  const labels: Record<string, string> = {};
  for (const part of value
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const eq = part.indexOf("=");
    if (eq <= 0) {
      ctx.addIssue({ code: "custom", message: `"${part}" is not key=value; separate labels with commas, e.g. env=prod, site=plant-3` });
      return z.NEVER;
    }
    labels[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return labels;
}, LabelRecord);

export const LabelsSchema = Labels.default({});

export const CredentialSourceSchema = z
  .discriminatedUnion("type", [
    z.object({
      type: z.literal("kubeconfig"),
      kubeconfig: z.string().min(1, "Paste or upload a kubeconfig").max(MAX_KUBECONFIG, "The kubeconfig is larger than 512 KiB"),
      context: z.string().min(1, "Choose a context"),
    }),
    z.object({
      type: z.literal("token"),
      apiUrl: z.string().min(1, "API URL is required"),
      token: z.string().trim().min(1, "Token is required").max(8192),
      caBundle: z
        .string()
        .max(64 * 1024)
        .optional(),
      insecureSkipTlsVerify: z.boolean().default(false),
    }),
  ])
  .meta({ id: "CredentialSource" });
export type CredentialSource = z.infer<typeof CredentialSourceSchema>;
/** How to reach a cluster, as the registration form sends it. */
export type CredentialSourceRequest = z.input<typeof CredentialSourceSchema>;

export const RegisterClusterSchema = z.object({
  name: ClusterNameSchema,
  displayName: z.string().trim().max(120).optional(),
  labels: LabelsSchema,
  source: CredentialSourceSchema,
});
export type RegisterClusterRequest = z.input<typeof RegisterClusterSchema>;

export const UpdateClusterSchema = z
  .object({
    displayName: z.string().trim().min(1).max(120).optional(),
    labels: Labels.optional(),
    source: CredentialSourceSchema.optional(),
  })
  .refine((c) => c.displayName !== undefined || c.labels !== undefined || c.source !== undefined, "Nothing to change");
export type UpdateClusterRequest = z.input<typeof UpdateClusterSchema>;

export const ConnectionTestSchema = z.object({ source: CredentialSourceSchema });

export const KubeconfigContextsSchema = z.object({
  kubeconfig: z.string().min(1, "Paste or upload a kubeconfig").max(MAX_KUBECONFIG),
});

/** Registering many clusters from one kubeconfig (server/clusters/bulk.ts). */
export const BULK_LIMITS = {
  /** A kubeconfig of 500 contexts with inline CA data and client certificates is about 2 MiB. */
  maxKubeconfigBytes: 2 * 1024 * 1024,
  /** Contexts one kubeconfig may bring; larger fleets are registered in several jobs (or from a hub). */
  maxContexts: 500,
};
/** The request around the kubeconfig: JSON escaping of a 2 MiB kubeconfig and the selection. */
export const BULK_MAX_BODY_BYTES = BULK_LIMITS.maxKubeconfigBytes + 256 * 1024;

const BulkKubeconfig = z
  .string()
  .min(1, "Paste or upload a kubeconfig")
  .max(BULK_LIMITS.maxKubeconfigBytes, `The kubeconfig is larger than ${BULK_LIMITS.maxKubeconfigBytes / 1024 / 1024} MiB`);

export const BulkPreviewSchema = z.object({ kubeconfig: BulkKubeconfig });
export type BulkPreviewRequest = z.input<typeof BulkPreviewSchema>;

export const CreateRegistrationJobSchema = z.object({
  kubeconfig: BulkKubeconfig,
  /** The contexts to register, each under the name the preview proposed unless `name` is given. */
  contexts: z
    .array(z.object({ context: z.string().min(1).max(1024), name: ClusterNameSchema.optional() }))
    .min(1, "Choose at least one context")
    .max(BULK_LIMITS.maxContexts, `At most ${BULK_LIMITS.maxContexts} contexts are registered at once`),
  labels: LabelsSchema,
});
export type CreateRegistrationJobRequest = z.input<typeof CreateRegistrationJobSchema>;

/** The multipart form of an offline import, as the document describes it (the handler reads it itself). */
const OfflineImportForm = z.object({
  name: ClusterNameSchema.meta({ description: "The offline cluster's name; importing under it again adds a newer capture" }),
  displayName: z.string().max(120).optional(),
  labels: z.string().optional().meta({ description: "key=value, separated by commas; on a later capture, labels not given stay" }),
  capturedAt: z.string().optional().meta({ description: "ISO 8601 with a time zone; the time of the upload when not given" }),
  files: z
    .array(z.string().meta({ format: "binary" }))
    .meta({ description: "Object dumps (oc get -o json|yaml), or one .tar.gz of them; also accepted as files[]" }),
});

// ---- Answers ----

const ContactStatus = z.enum(["unknown", "ok", "unreachable", "unauthorized", "stale"]);

/** A registered cluster as admins see it after a change: never its credentials. */
export const ClusterSummaryAnswer = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    displayName: z.string(),
    labels: z.record(z.string(), z.string()),
    platform: z.string().nullable(),
    apiUrl: z.string(),
    lastContactAt: isoDate().nullable(),
    lastContactStatus: ContactStatus,
    lastContactError: z.string().nullable(),
    offline: z.boolean().meta({ description: "Imported from object dumps: never contacted, no credentials" }),
  })
  .meta({ id: "ClusterSummary" });
export type ClusterSummary = z.output<typeof ClusterSummaryAnswer>;

/** What a connection test found: reachable, signed in, which version, and which reads are forbidden. */
export const ConnectionReportAnswer = z
  .strictObject({
    reachable: z.boolean(),
    authenticated: z.boolean(),
    kubernetesVersion: z.string().nullable(),
    openshiftVersion: z.string().nullable(),
    platform: z.string().nullable(),
    clusterId: z.string().nullable().meta({ description: "ClusterVersion spec.clusterID" }),
    served: z.array(z.strictObject({ kind: z.string(), groupVersion: z.string(), served: z.boolean() })),
    forbidden: z.array(
      z.strictObject({
        verb: z.string(),
        resource: z.string(),
        group: z.string(),
        namespace: z.string().optional(),
        message: z.string(),
      }),
    ),
    problem: z.string().nullable().meta({ description: "What went wrong first, when the connection is not usable" }),
  })
  .meta({ id: "ConnectionReport" });
export type ConnectionReport = z.output<typeof ConnectionReportAnswer>;
const ConnectionTestAnswer = z.strictObject({ report: ConnectionReportAnswer });
export type ConnectionTest = z.output<typeof ConnectionTestAnswer>;

export const KubeconfigContextAnswer = z.strictObject({
  name: z.string(),
  cluster: z.string(),
  server: z.string(),
  user: z.string().nullable(),
  current: z.boolean(),
});
export type KubeconfigContext = z.output<typeof KubeconfigContextAnswer>;

const CREDENTIAL_KINDS = ["token", "client certificate", "exec", "auth-provider", "files", "none"] as const;

export const BulkContextAnswer = z.strictObject({
  context: z.string(),
  name: z.string().meta({ description: "The cluster name it would be registered under (the context's name made valid, distinct)" }),
  apiUrl: z.string(),
  credentialKind: z.enum(CREDENTIAL_KINDS).meta({ description: "Only token and client certificate are accepted" }),
  accepted: z.boolean(),
  reason: z.string().nullable().meta({ description: "Why the context cannot be registered, when not accepted" }),
  registered: z
    .strictObject({ cluster: z.string(), by: z.enum(["name", "api-url"]) })
    .nullable()
    .meta({ description: "A cluster already registered under this name or at this API URL" }),
});
export type BulkContext = z.output<typeof BulkContextAnswer>;
const BulkPreviewAnswer = z.strictObject({ contexts: z.array(BulkContextAnswer) });
export type BulkPreview = z.output<typeof BulkPreviewAnswer>;

const ITEM_STATUSES = ["pending", "testing", "registered", "duplicate", "failed"] as const;

export const RegistrationItemAnswer = z.strictObject({
  position: z.number().int(),
  context: z.string(),
  name: z.string(),
  apiUrl: z.string(),
  status: z.enum(ITEM_STATUSES),
  reason: z.string().nullable(),
  clusterName: z.string().nullable().meta({ description: "The cluster registered, or the one it duplicates" }),
  openshiftVersion: z.string().nullable(),
  attempts: z.number().int(),
  finishedAt: isoDate().nullable(),
});
export type RegistrationItem = z.output<typeof RegistrationItemAnswer>;

export const RegistrationJobProgressAnswer = z
  .strictObject({
    id: z.uuid(),
    createdBy: z.string(),
    createdAt: isoDate(),
    finishedAt: isoDate().nullable(),
    counts: z.strictObject({
      total: z.number().int(),
      pending: z.number().int(),
      testing: z.number().int(),
      registered: z.number().int(),
      duplicate: z.number().int(),
      failed: z.number().int(),
    }),
    items: z.array(RegistrationItemAnswer),
  })
  .meta({ id: "RegistrationJob" });
export type RegistrationJobProgress = z.output<typeof RegistrationJobProgressAnswer>;
const RegistrationJobAnswer = z.strictObject({ job: RegistrationJobProgressAnswer });
export type RegistrationJobAnswer = z.output<typeof RegistrationJobAnswer>;

const SKEW_STATUSES = ["ok", "at-risk", "blocked", "opted-out", "unknown"] as const satisfies readonly SkewStatus[];

export const OfflineImportResultAnswer = z.strictObject({
  cluster: z.string(),
  created: z.boolean().meta({ description: "False when this capture was added to an offline cluster imported before" }),
  version: z.string().nullable(),
  skewStatus: z.enum(SKEW_STATUSES),
  skewSummary: z.string(),
  oldestBootImage: z.string().nullable(),
  capturedAt: isoDate(),
  capturedAtSource: z
    .enum(["given", "upload"])
    .meta({ description: "upload: no capture time was given and the time of the upload stands in for it" }),
  previousCaptureAt: isoDate().nullable(),
  historyRows: z.number().int(),
  counts: z.strictObject({ files: z.number().int(), objects: z.number().int(), read: z.number().int() }),
  warnings: z.array(z.string()),
});
export type OfflineImportResult = z.output<typeof OfflineImportResultAnswer>;

const ClusterName = z.object({ name: z.string().min(1) });

export const clusterAdminEndpoints = {
  register: endpoint({
    method: "POST",
    path: "/api/v1/clusters",
    summary: "Register a cluster: test the connection, store the credentials encrypted",
    description:
      "The connection is tested first and its outcome stored as the cluster's last contact; a cluster that cannot be reached now is still registered (a disconnected site may come online later). The answer carries the test's report; the credentials are never sent back.",
    access: ["admin"],
    body: RegisterClusterSchema,
    maxBodyBytes: REGISTRATION_MAX_BODY_BYTES,
    status: 201,
    errors: [409],
    answer: z.strictObject({ cluster: ClusterSummaryAnswer, report: ConnectionReportAnswer }),
  }),
  change: endpoint({
    method: "PATCH",
    path: "/api/v1/clusters/{name}",
    summary: "Change a cluster's display name, labels or credentials",
    description: "An offline import has no credentials to change (409).",
    access: ["admin"],
    params: ClusterName,
    body: UpdateClusterSchema,
    maxBodyBytes: REGISTRATION_MAX_BODY_BYTES,
    errors: [409],
    answer: z.strictObject({ cluster: ClusterSummaryAnswer }),
  }),
  remove: endpoint({
    method: "DELETE",
    path: "/api/v1/clusters/{name}",
    summary: "Remove a cluster, its credentials and its history",
    access: ["admin"],
    params: ClusterName,
    status: 204,
    produces: "none",
    answer: z.void(),
  }),
  testRegistered: endpoint({
    method: "POST",
    path: "/api/v1/clusters/{name}/test",
    summary: "Test a registered cluster's connection now and record the outcome as its last contact",
    description: "Audited. An offline import has no credentials and is never contacted (409).",
    access: ["admin"],
    params: ClusterName,
    errors: [409],
    work: { kind: "connection-test" },
    answer: ConnectionTestAnswer,
  }),
  importOffline: endpoint({
    method: "POST",
    path: "/api/v1/clusters/import",
    summary: "Import an offline cluster (or a newer capture of one) from object dumps",
    description:
      "multipart/form-data of up to 32 MiB: the dumps are read like a live cluster and stored as an offline cluster, which is never contacted. Warnings past the first 50 are counted, not listed. 422 when the upload is not the dump of an OpenShift cluster; 409 when the name is taken by a live cluster.",
    access: ["admin"],
    form: OfflineImportForm,
    status: 201,
    errors: [409, 422],
    work: { kind: "bulk" },
    answer: OfflineImportResultAnswer,
  }),
  testCredentials: endpoint({
    method: "POST",
    path: "/api/v1/connection-tests",
    summary: "Test credentials before registering them",
    description: "Nothing is stored but the audit event of the test (never the credentials).",
    access: ["admin"],
    body: ConnectionTestSchema,
    maxBodyBytes: REGISTRATION_MAX_BODY_BYTES,
    work: { kind: "connection-test" },
    answer: ConnectionTestAnswer,
  }),
  kubeconfigContexts: endpoint({
    method: "POST",
    path: "/api/v1/kubeconfig-contexts",
    summary: "The contexts of a kubeconfig, to choose one",
    description: "Names and servers only: no secret of the kubeconfig is sent back, and nothing is stored.",
    access: ["admin"],
    body: KubeconfigContextsSchema,
    maxBodyBytes: REGISTRATION_MAX_BODY_BYTES,
    answer: z.strictObject({ contexts: z.array(KubeconfigContextAnswer) }),
  }),
  createRegistrationJob: endpoint({
    method: "POST",
    path: "/api/v1/registration-jobs",
    summary: "Register many contexts of a kubeconfig in one go",
    description:
      "Answers at once (202) with the job; its items are tested and registered in the background. Follow it with GET /api/v1/registration-jobs/{id}. Any wrong part of the request (an unknown or refused context, a name chosen twice) refuses all of it.",
    access: ["admin"],
    body: CreateRegistrationJobSchema,
    maxBodyBytes: BULK_MAX_BODY_BYTES,
    status: 202,
    work: { kind: "bulk" },
    answer: RegistrationJobAnswer,
  }),
  previewRegistrationJob: endpoint({
    method: "POST",
    path: "/api/v1/registration-jobs/preview",
    summary: "Every context of a kubeconfig with what it would become",
    description: "No cluster is contacted and no secret is sent back.",
    access: ["admin"],
    body: BulkPreviewSchema,
    maxBodyBytes: BULK_MAX_BODY_BYTES,
    work: { kind: "bulk" },
    answer: BulkPreviewAnswer,
  }),
  registrationJob: endpoint({
    method: "GET",
    path: "/api/v1/registration-jobs/{id}",
    summary: "A registration job's progress: counts, and each context's status and reason",
    access: ["admin"],
    params: z.object({ id: z.uuid("there is no such registration job") }),
    answer: RegistrationJobAnswer,
  }),
};
