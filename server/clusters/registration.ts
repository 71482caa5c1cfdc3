import { auditActor, type Actor } from "../auth/actor";
import { invalidateFleetList } from "../fleet/fleetList";
import { z } from "zod";
import { noSuchCluster, UserFacingError } from "../errors";
import { appConfig } from "../config/current";
import { testConnection, type ConnectionReport } from "../kube/connection";
import {
  checkCaBundle,
  checkServerUrl,
  CredentialsError,
  CredentialsSchema,
  parseKubeconfig,
  type ClusterCredentials,
  type KubeconfigContext,
} from "../kube/credentials";
import { openSecret, sealSecret } from "../secrets/keyring";
import { recordAudit } from "../store/audit";
import {
  ClusterNameTakenError,
  deleteCluster,
  findClusterCredentials,
  findClusterSummary,
  insertCluster,
  listClusterSummaries,
  recordContact,
  updateCluster,
  type ClusterSummary,
  type ContactStatus,
} from "../store/clusters";

const MAX_KUBECONFIG = 512 * 1024;

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
  .refine((name) => name !== "import", "The name import is reserved; choose another");

const LabelRecord = z.record(
  z.string().regex(/^[\w./-]{1,63}$/, "label keys may use letters, digits, '.', '/', '-' and '_'"),
  z.string().max(63, "label values are at most 63 characters"),
);

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

export const CredentialSourceSchema = z.discriminatedUnion("type", [
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
]);
export type CredentialSource = z.infer<typeof CredentialSourceSchema>;

export const RegisterClusterSchema = z.object({
  name: ClusterNameSchema,
  displayName: z.string().trim().max(120).optional(),
  labels: LabelsSchema,
  source: CredentialSourceSchema,
});

export const UpdateClusterSchema = z
  .object({
    displayName: z.string().trim().min(1).max(120).optional(),
    labels: LabelsSchema.optional(),
    source: CredentialSourceSchema.optional(),
  })
  .refine((c) => c.displayName !== undefined || c.labels !== undefined || c.source !== undefined, "Nothing to change");

/** Turns what the admin entered into credentials, or a 400 that says what is wrong. */
export function resolveCredentials(source: CredentialSource): ClusterCredentials {
  try {
    if (source.type === "kubeconfig") return parseKubeconfig(source.kubeconfig).credentialsFor(source.context);
    return CredentialsSchema.parse({
      server: checkServerUrl(source.apiUrl),
      token: source.token,
      certificateAuthority: checkCaBundle(source.caBundle),
      insecureSkipTlsVerify: source.insecureSkipTlsVerify,
    });
  } catch (error) {
    if (error instanceof CredentialsError) throw new UserFacingError(400, error.message);
    throw error;
  }
}

/** The contexts of a kubeconfig, without any secret, so the admin can pick one. */
export function listKubeconfigContexts(kubeconfig: string): KubeconfigContext[] {
  try {
    return parseKubeconfig(kubeconfig).contexts;
  } catch (error) {
    if (error instanceof CredentialsError) throw new UserFacingError(400, error.message);
    throw error;
  }
}

export function contactStatusOf(report: ConnectionReport): { status: ContactStatus; error: string | null } {
  if (!report.reachable) return { status: "unreachable", error: report.problem };
  if (!report.authenticated) return { status: "unauthorized", error: report.problem };
  return { status: "ok", error: report.problem };
}

/** The context credentials are sealed under: bound to the cluster's name. */
export const credentialsContext = (name: string) => `cluster:${name}`;

/** Encrypts credentials for one cluster's row (bound to its name). */
export async function sealCredentials(name: string, credentials: ClusterCredentials): Promise<Buffer> {
  return sealSecret(JSON.stringify(credentials), credentialsContext(name));
}

/** What the audit log keeps of a connection test: its outcome, never the credentials. */
const testAudit = (actor: Actor, target: string, report: ConnectionReport, source: string) => {
  const contact = contactStatusOf(report);
  return {
    ...auditActor(actor),
    action: "cluster.connection-test",
    targetType: "cluster",
    targetId: target,
    outcome: contact.status === "ok" ? ("success" as const) : ("failure" as const),
    summary: `tested the connection to ${target}: ${contact.status}${contact.error ? ` (${contact.error})` : ""}`,
    details: { source, status: contact.status, version: report.openshiftVersion, missingPermissions: report.forbidden.length },
  };
};

/** Tests credentials that are not saved yet; the test (not the credentials) is audited. */
export async function testCredentials(source: CredentialSource, actor: Actor): Promise<ConnectionReport> {
  const credentials = resolveCredentials(source);
  const report = await testConnection(credentials, connectionOptions());
  await recordAudit(testAudit(actor, credentials.server, report, source.type));
  return report;
}

/** Connection tests answer within the configured per-request timeout, without retries (a person is waiting). */
export const connectionOptions = () => ({ timeoutMs: Math.min(appConfig().kube.timeoutMs, 8_000), retries: 0 });

/**
 * Registers a cluster. The connection is tested first and its outcome stored as the last contact;
 * a cluster that cannot be reached now is still registered (a disconnected site may come online later).
 */
export async function registerCluster(
  input: z.infer<typeof RegisterClusterSchema>,
  actor: Actor,
): Promise<{ cluster: ClusterSummary; report: ConnectionReport }> {
  const credentials = resolveCredentials(input.source);
  if (await findClusterSummary(input.name)) throw new UserFacingError(409, `a cluster named ${input.name} is already registered`);
  const report = await testConnection(credentials, connectionOptions());
  const contact = contactStatusOf(report);
  try {
    const cluster = await insertCluster(
      {
        name: input.name,
        displayName: input.displayName || input.name,
        labels: input.labels,
        platform: report.platform,
        apiUrl: credentials.server,
        encryptedCredentials: await sealCredentials(input.name, credentials),
        contact: { ...contact, at: new Date() },
        openshiftClusterId: report.clusterId,
      },
      {
        ...auditActor(actor),
        details: { tls: credentials.insecureSkipTlsVerify ? "verification skipped" : "verified", source: input.source.type },
      },
    );
    invalidateFleetList();
    return { cluster, report };
  } catch (error) {
    if (error instanceof ClusterNameTakenError) throw new UserFacingError(409, error.message);
    throw error;
  }
}

export async function changeCluster(name: string, input: z.infer<typeof UpdateClusterSchema>, actor: Actor): Promise<ClusterSummary> {
  if (input.source && (await findClusterSummary(name))?.offline)
    throw new UserFacingError(409, `${offlineMessage(name)}; register the live cluster under another name`);
  const credentials = input.source ? resolveCredentials(input.source) : undefined;
  const updated = await updateCluster(
    name,
    {
      displayName: input.displayName,
      labels: input.labels,
      ...(credentials ? { apiUrl: credentials.server, encryptedCredentials: await sealCredentials(name, credentials) } : {}),
    },
    auditActor(actor),
  );
  if (!updated) throw noSuchCluster(name);
  invalidateFleetList();
  return updated;
}

export async function removeCluster(name: string, actor: Actor): Promise<void> {
  if (!(await deleteCluster(name, auditActor(actor)))) throw noSuchCluster(name);
  invalidateFleetList();
}

const offlineMessage = (name: string) =>
  `${name} is an offline import: Fleetskew has no credentials for it and never contacts it (import newer dumps to update it)`;

/** The stored credentials of a registered cluster, decrypted; for server-side use only. */
export async function credentialsOf(name: string): Promise<ClusterCredentials> {
  const stored = await findClusterCredentials(name);
  if (!stored) throw noSuchCluster(name);
  if (stored.offline) throw new UserFacingError(409, offlineMessage(name));
  return openCredentials(name, stored.sealed);
}

/** Opens sealed credentials read along with other data (the collector's claims). */
export async function openCredentials(name: string, sealed: Buffer): Promise<ClusterCredentials> {
  return CredentialsSchema.parse(JSON.parse((await openSecret(sealed, credentialsContext(name))).toString("utf8")));
}

/** Tests a registered cluster and records the outcome as its last contact, audited. */
export async function testRegisteredCluster(name: string, actor: Actor): Promise<ConnectionReport> {
  const report = await testConnection(await credentialsOf(name), connectionOptions());
  await recordContact(
    name,
    { ...contactStatusOf(report), at: new Date(), platform: report.platform, openshiftClusterId: report.clusterId },
    testAudit(actor, name, report, "registered"),
  );
  return report;
}

export { listClusterSummaries, findClusterSummary };
