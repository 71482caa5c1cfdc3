import { appConfig } from "../config/current";
import { ClusterClient, configuredClientOptions, KubeError, type ClientOptions } from "../kube/client";
import { recordAudit, type AuditInput } from "../store/audit";
import { makeDue } from "../store/sweeps";
import { credentialsOf } from "./registration";

/** A client for one registered cluster with the configured timeout and retries. */
export async function clusterClient(name: string, options: Partial<ClientOptions> = {}): Promise<ClusterClient> {
  return new ClusterClient(await credentialsOf(name), { ...configuredClientOptions(appConfig().kube), ...options });
}

/** Runs `work` with a client for one registered cluster and closes its connections afterwards. */
export async function withClusterClient<T>(
  name: string,
  work: (client: ClusterClient) => Promise<T>,
  options: Partial<ClientOptions> = {},
): Promise<T> {
  const client = await clusterClient(name, options);
  try {
    return await work(client);
  } finally {
    client.close();
  }
}

/** The cluster's own words for a failed call, as people read them in the audit log and on screens. */
export const clusterAnswer = (error: unknown) =>
  error instanceof KubeError ? `${error.message}${error.status ? ` (HTTP ${error.status})` : ""}` : (error as Error).message;

/**
 * Runs one write to a cluster and records it in the audit log with its result, success or
 * failure: the trail shows every change Fleetskew made to a cluster, and every one it tried.
 */
export async function auditedClusterWrite<T>(
  who: Pick<AuditInput, "actor" | "role" | "ip">,
  cluster: string,
  what: { object: string; change: string; details?: Record<string, unknown> },
  write: () => Promise<T>,
  describe: (result: T) => string = () => "done",
): Promise<T> {
  try {
    const result = await write();
    await recordAudit({
      ...who,
      action: "cluster.write",
      targetType: "cluster",
      targetId: cluster,
      summary: `${what.change} on ${cluster}: ${describe(result)}`,
      details: { object: what.object, result: describe(result), ...what.details },
    });
    // What the console shows of the cluster comes from sweeps: sweep it again soon to show the change.
    await makeDue(cluster).catch(() => undefined);
    return result;
  } catch (error) {
    await recordAudit({
      ...who,
      action: "cluster.write",
      targetType: "cluster",
      targetId: cluster,
      outcome: "failure",
      summary: `${what.change} on ${cluster} failed: ${clusterAnswer(error)}`,
      details: { object: what.object, error: clusterAnswer(error), ...what.details },
    }).catch(() => undefined);
    throw error;
  }
}
