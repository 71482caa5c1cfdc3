import { hostname } from "node:os";
import { appConfig } from "../config/current";
import { invalidateFleetList } from "../fleet/fleetList";
import { testConnection } from "../kube/connection";
import { CredentialsSchema, type ClusterCredentials } from "../kube/credentials";
import { openSecret } from "../secrets/keyring";
import { findClusterSummary } from "../store/clusters";
import {
  claimRegistrationItem,
  finishJobIfDone,
  finishRegistrationItem,
  registerItemCluster,
  type ClaimedRegistrationItem,
  type ItemOutcome,
} from "../store/registrationJobs";
import { connectionOptions, contactStatusOf, sealCredentials } from "./registration";

/**
 * Works through the items of registration jobs: each worker slot claims one item at a time from the
 * database, tests its connection and registers it, until nothing is left. Any process may run this;
 * items are shared through their leases (server/store/registrationJobs.ts).
 */
export type RunnerOptions = {
  worker: string;
  /** Items tested at once by this process. */
  concurrency: number;
  /** How long a claimed item is held: longer than one connection test can take (its requests time out). */
  leaseMs: number;
  /** Attempts after which an item whose worker kept dying is given up. */
  maxAttempts: number;
  now?: () => Date;
};

export const defaultRunnerOptions = (): RunnerOptions => ({
  worker: `registration@${hostname()}:${process.pid}`,
  concurrency: appConfig().registrationConcurrency,
  leaseMs: 120_000,
  maxAttempts: 3,
});

/** The context an item's credentials are sealed under: bound to its job and place in it. */
export const itemCredentialsContext = (jobId: string, position: number) => `registration:${jobId}/${position}`;

async function openItemCredentials(item: ClaimedRegistrationItem): Promise<ClusterCredentials> {
  const plain = await openSecret(item.sealedCredentials!, itemCredentialsContext(item.jobId, item.position));
  return CredentialsSchema.parse(JSON.parse(plain.toString("utf8")));
}

/** Tests one claimed item and records its outcome; never throws for anything a cluster does. */
export async function processRegistrationItem(item: ClaimedRegistrationItem, options: RunnerOptions): Promise<void> {
  const now = () => options.now?.() ?? new Date();
  const fail = (outcome: ItemOutcome) => finishRegistrationItem(item.id, options.worker, outcome, now());
  if (item.attempts > options.maxAttempts || !item.sealedCredentials) {
    await fail({ status: "failed", reason: `given up after ${item.attempts - 1} attempts: the process testing it stopped each time` });
  } else if (await findClusterSummary(item.name)) {
    // Known by name before any contact: nothing to test.
    await fail({ status: "duplicate", reason: `a cluster named ${item.name} is already registered`, clusterName: item.name });
  } else {
    let credentials: ClusterCredentials;
    try {
      credentials = await openItemCredentials(item);
    } catch (error) {
      await fail({ status: "failed", reason: `its credentials could not be opened: ${(error as Error).message}` });
      return finish(item, options);
    }
    const report = await testConnection(credentials, connectionOptions());
    const contact = contactStatusOf(report);
    if (contact.status === "unreachable") await fail({ status: "failed", reason: `Unreachable: ${contact.error}` });
    else if (contact.status === "unauthorized") await fail({ status: "failed", reason: `Credentials refused: ${contact.error}` });
    else if (!report.openshiftVersion) await fail({ status: "failed", reason: report.problem ?? "no readable ClusterVersion" });
    else {
      const at = now();
      const outcome = await registerItemCluster(
        { id: item.id, worker: options.worker, openshiftVersion: report.openshiftVersion },
        {
          name: item.name,
          displayName: item.name,
          labels: item.labels,
          platform: report.platform,
          apiUrl: credentials.server,
          encryptedCredentials: await sealCredentials(item.name, credentials),
          contact: { ...contact, at },
          openshiftClusterId: report.clusterId,
        },
        {
          actor: item.createdBy,
          role: item.createdByRole,
          action: "cluster.register",
          targetType: "cluster",
          targetId: item.name,
          details: {
            apiUrl: credentials.server,
            source: "kubeconfig",
            context: item.context,
            job: item.jobId,
            tls: credentials.insecureSkipTlsVerify ? "verification skipped" : "verified",
          },
        },
        at,
      );
      if (outcome.status === "registered") invalidateFleetList();
    }
  }
  await finish(item, options);
}

async function finish(item: ClaimedRegistrationItem, options: RunnerOptions): Promise<void> {
  await finishJobIfDone(
    item.jobId,
    (counts) => ({
      actor: item.createdBy,
      role: item.createdByRole,
      action: "cluster.bulk-register.finished",
      targetType: "registration-job",
      targetId: item.jobId,
      outcome: counts.failed > 0 ? "failure" : "success",
      summary: `finished registering from a kubeconfig: ${counts.registered} registered, ${counts.duplicate} already registered, ${counts.failed} failed`,
      details: { ...counts },
    }),
    options.now?.() ?? new Date(),
  );
}

/**
 * Claims and processes items with `concurrency` slots until none is left to claim. An idle pass
 * costs one query: the other slots start only once the first claim found work.
 */
export async function drainRegistrations(options: RunnerOptions): Promise<number> {
  const claim = () => claimRegistrationItem(options.worker, options.leaseMs, options.now?.() ?? new Date());
  const first = await claim();
  if (!first) return 0;
  let processed = 0;
  const slot = async (initial: ClaimedRegistrationItem | null) => {
    for (let item = initial ?? (await claim()); item; item = await claim()) {
      const name = item.name;
      await processRegistrationItem(item, options).catch((error) =>
        console.error(`fleetskew: registering ${name} from a kubeconfig failed:`, (error as Error).message),
      );
      processed++;
    }
  };
  await Promise.all([slot(first), ...Array.from({ length: options.concurrency - 1 }, () => slot(null))]);
  return processed;
}

let running: Promise<void> | null = null;
let again = false;

/**
 * Starts working through pending items in this process, unless it already is (then the running
 * pass looks again before it stops). Called when a job is created and by the background loop,
 * which also takes up items of processes that died.
 */
export function kickRegistrations(options = defaultRunnerOptions()): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    do {
      again = false;
      await drainRegistrations(options);
    } while (again);
  })()
    .catch((error) => console.error("fleetskew: registering clusters from a kubeconfig failed:", (error as Error).message))
    .finally(() => {
      running = null;
    });
  return running;
}
