import { appConfig } from "../config/current";
import { UserFacingError } from "../errors";
import { ClusterClient, KubeError } from "../kube/client";
import { recordAudit, type AuditInput } from "../store/audit";
import { makeDue } from "../store/sweeps";
import { credentialsOf } from "./registration";
import { type ClientOptions, configuredClientOptions } from "../kube/clientConfig";

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

/**
 * A failed call as people read it in the audit log and on screens: the cluster's own words, or a
 * message written for people; never an internal error's text, which goes to the server log.
 */
export const clusterAnswer = (error: unknown) => shownFailure(error, "a call to a cluster");

/** The same, naming in the log `what` was being done. */
export function shownFailure(error: unknown, what: string): string {
  if (error instanceof KubeError) return `${error.message}${error.status ? ` (HTTP ${error.status})` : ""}`;
  if (error instanceof UserFacingError) return error.message;
  console.error(`fleetskew: ${what} failed:`, error);
  return "an error in Fleetskew; the details are in the server log";
}

/** An audit event that could not be written is kept in the server log whole, so it can be recovered. */
async function recordAuditOrLog(event: AuditInput): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await recordAudit(event);
      return;
    } catch (error) {
      if (attempt >= 3) {
        console.error(
          `fleetskew: could not write an audit event after ${attempt} attempts (${(error as Error).message}); the event:`,
          JSON.stringify(event),
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/**
 * Runs one write to a cluster and records it in the audit log with its result, success or
 * failure: the trail shows every change Fleetskew made to a cluster, and every one it tried. Once
 * the cluster accepted a write, a failure to record it is not the cluster's refusal: the write
 * stands and is reported as done, and the event is retried, then kept in the server log.
 */
export async function auditedClusterWrite<T>(
  who: Pick<AuditInput, "actor" | "role" | "ip">,
  cluster: string,
  what: { object: string; change: string; details?: Record<string, unknown> },
  write: () => Promise<T>,
  describe: (result: T) => string = () => "done",
  options: { auditFailure?: (error: unknown) => boolean } = {},
): Promise<T> {
  let result: T;
  try {
    result = await write();
  } catch (error) {
    // A caller that tries again audits its attempts as one event (the last one's), not one per attempt.
    if (options.auditFailure && !options.auditFailure(error)) throw error;
    await recordAuditOrLog({
      ...who,
      action: "cluster.write",
      targetType: "cluster",
      targetId: cluster,
      outcome: "failure",
      summary: `${what.change} on ${cluster} failed: ${clusterAnswer(error)}`,
      details: { object: what.object, error: clusterAnswer(error), ...what.details },
    });
    throw error;
  }
  await recordAuditOrLog({
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
}
