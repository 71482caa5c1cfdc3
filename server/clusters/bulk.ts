import { randomUUID } from "node:crypto";
import type { z } from "zod";
import type { Actor } from "../auth/actor";
import { auditActor } from "../auth/actor";
import { clusterNamesForContexts } from "../domain/clusterNames";
import { UserFacingError } from "../errors";
import { CredentialsError, parseKubeconfig, type ParsedKubeconfig } from "../kube/credentials";
import { sealSecret } from "../secrets/keyring";
import { listClusterSummaries } from "../store/clusters";
import { findRegistrationJob, insertRegistrationJob, countsOf } from "../store/registrationJobs";
import { BULK_LIMITS, type BulkContext, type CreateRegistrationJobSchema, type RegistrationJobProgress } from "./contract";
import { enqueueRegistrationItems, itemCredentialsContext } from "./bulkRunner";

/**
 * Registering many clusters from one kubeconfig: a preview of every context (what it would become),
 * then one request that creates a job whose items are tested and registered in the background
 * (bulkRunner.ts). The preview contacts no cluster; the job's items do.
 */
export { BULK_LIMITS, BULK_MAX_BODY_BYTES, BulkPreviewSchema, CreateRegistrationJobSchema } from "./contract";
export type { BulkContext, RegistrationJobProgress };

type Previewed = { parsed: ParsedKubeconfig; contexts: BulkContext[] };

function parse(kubeconfig: string): ParsedKubeconfig {
  try {
    return parseKubeconfig(kubeconfig);
  } catch (error) {
    if (error instanceof CredentialsError) throw new UserFacingError(400, error.message);
    throw error;
  }
}

async function preview(kubeconfig: string): Promise<Previewed> {
  const parsed = parse(kubeconfig);
  if (parsed.contexts.length > BULK_LIMITS.maxContexts)
    throw new UserFacingError(
      400,
      `the kubeconfig has ${parsed.contexts.length} contexts; at most ${BULK_LIMITS.maxContexts} are registered at once: split it into several files`,
    );
  const names = clusterNamesForContexts(parsed.contexts.map((c) => c.name));
  const existing = await listClusterSummaries();
  const byName = new Map(existing.map((c) => [c.name, c.name]));
  const byUrl = new Map(existing.filter((c) => c.apiUrl).map((c) => [c.apiUrl.replace(/\/$/, ""), c.name]));
  const seen = new Set<string>();
  const contexts = parsed.contexts.map((c, i): BulkContext => {
    let apiUrl = c.server;
    let reason: string | null = null;
    if (seen.has(c.name)) reason = `the kubeconfig has another context named "${c.name}" before this one`;
    seen.add(c.name);
    if (!reason) {
      try {
        apiUrl = parsed.credentialsFor(c.name).server;
      } catch (error) {
        if (!(error instanceof CredentialsError)) throw error;
        reason = error.message;
      }
    }
    const name = names[i]!;
    const atUrl = byUrl.get(apiUrl.replace(/\/$/, ""));
    return {
      context: c.name,
      name,
      apiUrl,
      credentialKind: parsed.credentialKindOf(c.name),
      accepted: reason === null,
      reason,
      registered: byName.has(name) ? { cluster: name, by: "name" } : atUrl ? { cluster: atUrl, by: "api-url" } : null,
    };
  });
  return { parsed, contexts };
}

/** Every context of a kubeconfig with what it would become; no secret leaves the server, no cluster is contacted. */
export async function previewBulkRegistration(kubeconfig: string): Promise<{ contexts: BulkContext[] }> {
  return { contexts: (await preview(kubeconfig)).contexts };
}

/**
 * Creates a registration job for the chosen contexts: every item and the audit event in one
 * transaction, or nothing at all when any part of the request is wrong. Returns at once; the
 * items are tested and registered in the background.
 */
export async function createRegistrationJob(
  input: z.infer<typeof CreateRegistrationJobSchema>,
  actor: Actor,
): Promise<RegistrationJobProgress> {
  const { parsed, contexts } = await preview(input.kubeconfig);
  const byContext = new Map(contexts.map((c) => [c.context, c]));
  const chosen = new Set<string>();
  const names = new Set<string>();
  const items = [];
  const id = randomUUID();
  for (const pick of input.contexts) {
    const found = byContext.get(pick.context);
    if (!found) throw new UserFacingError(400, `the kubeconfig has no context named "${pick.context.slice(0, 200)}"`);
    if (chosen.has(pick.context)) throw new UserFacingError(400, `context "${pick.context}" is chosen twice`);
    chosen.add(pick.context);
    if (!found.accepted) throw new UserFacingError(400, `context "${pick.context}" cannot be registered: ${found.reason}; leave it out`);
    const name = pick.name ?? found.name;
    if (names.has(name)) throw new UserFacingError(400, `two chosen contexts would both be named ${name}; give one another name`);
    names.add(name);
    const credentials = parsed.credentialsFor(pick.context);
    items.push({
      id: randomUUID(),
      context: pick.context,
      name,
      apiUrl: credentials.server,
      sealedCredentials: await sealSecret(JSON.stringify(credentials), itemCredentialsContext(id, items.length)),
    });
  }
  await insertRegistrationJob(
    { id, createdBy: actor.user.username, createdByRole: actor.user.role, labels: input.labels, items },
    { ...auditActor(actor), details: { labels: input.labels } },
    (db, itemIds) => enqueueRegistrationItems(db, itemIds),
  );
  return (await registrationJobProgress(id))!;
}

export async function registrationJobProgress(id: string): Promise<RegistrationJobProgress | null> {
  const job = await findRegistrationJob(id);
  if (!job) return null;
  const tally = new Map<string, number>();
  for (const item of job.items) tally.set(item.status, (tally.get(item.status) ?? 0) + 1);
  return {
    id: job.id,
    createdBy: job.createdBy,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
    counts: countsOf([...tally].map(([status, count]) => ({ status, count }))),
    items: job.items,
  };
}

export async function requireRegistrationJob(id: string): Promise<RegistrationJobProgress> {
  const job = await registrationJobProgress(id);
  if (!job) throw new UserFacingError(404, `there is no registration job ${id}`);
  return job;
}
