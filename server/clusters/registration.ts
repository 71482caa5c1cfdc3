import { auditActor, type Actor } from "../auth/actor";
import { invalidateFleetList } from "../fleet/fleetList";
import type { z } from "zod";
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
import type { CredentialSource, KubeconfigContext, RegisterClusterSchema, UpdateClusterSchema } from "./contract";

export {
  ClusterNameSchema,
  CredentialSourceSchema,
  Labels,
  LabelsSchema,
  RegisterClusterSchema,
  UpdateClusterSchema,
  type CredentialSource,
} from "./contract";

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
  const report = await testClusterConnection(credentials);
  await recordAudit(testAudit(actor, credentials.server, report, source.type));
  return report;
}

/** Connection tests answer within the configured per-request timeout, without retries (a person is waiting). */
export const connectionOptions = () => ({ timeoutMs: Math.min(appConfig().kube.timeoutMs, 8_000), retries: 0 });

/**
 * What a connection test says when no Kubernetes API server answered. One sentence whatever was
 * there instead: a closed port, a plain-HTTP service, a database or a web server that is not
 * Kubernetes all read the same, so a test cannot map the console's network. The cause is in the
 * server's log, for whoever runs it.
 */
export const UNREACHABLE_MESSAGE =
  "could not reach a Kubernetes API server at this address (check the URL, its port, the network path and the CA; the server's log has the details)";

/** Tests credentials; a failure to reach an API server is told in one sentence, its cause logged. */
export async function testClusterConnection(credentials: ClusterCredentials): Promise<ConnectionReport> {
  const report = await testConnection(credentials, connectionOptions());
  if (report.reachable) return report;
  console.warn(`fleetskew: connection test: no Kubernetes API server answered at ${credentials.server}: ${report.problem}`);
  return { ...report, problem: UNREACHABLE_MESSAGE };
}

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
  const report = await testClusterConnection(credentials);
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
  const report = await testClusterConnection(await credentialsOf(name));
  await recordContact(
    name,
    { ...contactStatusOf(report), at: new Date(), platform: report.platform, openshiftClusterId: report.clusterId },
    testAudit(actor, name, report, "registered"),
  );
  return report;
}

export { listClusterSummaries, findClusterSummary };
