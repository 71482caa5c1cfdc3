import { randomUUID } from "node:crypto";
import { z } from "zod";
import { invalidateFleetList } from "../fleet/fleetList";
import { CredentialsSchema, type ClusterCredentials } from "../kube/credentials";
import { defineJob, jobSystem, type EnqueueOptions } from "../runtime/jobs";
import { openSecret } from "../secrets/keyring";
import { findClusterSummary } from "../store/clusters";
import type { SqlExecutor } from "../store/db";
import {
  finishJobIfDone,
  finishRegistrationItem,
  registerItemCluster,
  takeRegistrationItem,
  type ClaimedRegistrationItem,
  type ItemOutcome,
} from "../store/registrationJobs";
import { contactStatusOf, sealCredentials, testClusterConnection } from "./registration";

/**
 * Works through the items of registration jobs: each item is a job of the job system
 * (server/runtime/jobs.ts), run by whichever web or collector process fetches it, retried when the
 * process testing it dies (its lease runs out) or the database fails mid-way.
 */
export type RunnerOptions = {
  /** This attempt's name: only it may record the item's end. */
  holder: string;
  /** Attempts after which an item whose worker kept dying is given up. */
  maxAttempts: number;
  now?: () => Date;
};

/** Items tested at once by one process (FLEETSKEW_REGISTRATION_CONCURRENCY sets it when work starts). */
export const DEFAULT_REGISTRATION_CONCURRENCY = 16;
/** How long an attempt holds an item unless renewed: longer than one connection test can take (its requests time out). */
const ITEM_LEASE_MS = 120_000;
const MAX_ATTEMPTS = 3;

export const registrationItemJob = defineJob(
  "registration-item",
  z.object({ itemId: z.string().uuid() }),
  async ({ itemId }, context) => {
    const item = await takeRegistrationItem(itemId, context.holder);
    // Finished already: a retry of an attempt that ended its work but not its job.
    if (!item) return;
    await processRegistrationItem(item, { holder: context.holder, maxAttempts: MAX_ATTEMPTS });
  },
  // The job system retries an attempt that died; the item's own count gives up after MAX_ATTEMPTS (one more run records that).
  { policy: "standard", leaseMs: ITEM_LEASE_MS, retryLimit: MAX_ATTEMPTS, concurrency: DEFAULT_REGISTRATION_CONCURRENCY },
);

/**
 * Enqueues the items' work through the transaction that creates them (server/store/registrationJobs.ts),
 * with job ids that sort in the kubeconfig's order (one random prefix, the position at the end), so
 * that items are tested in that order, as a person reading the progress expects.
 */
export async function enqueueRegistrationItems(db: SqlExecutor, itemIds: string[], options: EnqueueOptions = {}): Promise<void> {
  const prefix = randomUUID().slice(0, 24);
  for (const [position, itemId] of itemIds.entries())
    await jobSystem().enqueue(
      registrationItemJob,
      { itemId },
      { ...options, db, id: `${prefix}${position.toString(16).padStart(12, "0")}` },
    );
}

/** The context an item's credentials are sealed under: bound to its job and place in it. */
export const itemCredentialsContext = (jobId: string, position: number) => `registration:${jobId}/${position}`;

async function openItemCredentials(item: ClaimedRegistrationItem): Promise<ClusterCredentials> {
  const plain = await openSecret(item.sealedCredentials!, itemCredentialsContext(item.jobId, item.position));
  return CredentialsSchema.parse(JSON.parse(plain.toString("utf8")));
}

/** Tests one claimed item and records its outcome; never throws for anything a cluster does. */
export async function processRegistrationItem(item: ClaimedRegistrationItem, options: RunnerOptions): Promise<void> {
  const now = () => options.now?.() ?? new Date();
  const fail = (outcome: ItemOutcome) => finishRegistrationItem(item.id, options.holder, outcome, now());
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
    const report = await testClusterConnection(credentials);
    const contact = contactStatusOf(report);
    if (contact.status === "unreachable") await fail({ status: "failed", reason: `Unreachable: ${contact.error}` });
    else if (contact.status === "unauthorized") await fail({ status: "failed", reason: `Credentials refused: ${contact.error}` });
    else if (!report.openshiftVersion) await fail({ status: "failed", reason: report.problem ?? "no readable ClusterVersion" });
    else {
      const at = now();
      const outcome = await registerItemCluster(
        { id: item.id, holder: options.holder, openshiftVersion: report.openshiftVersion },
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

/** Runs waiting items in this process until none is left to fetch (tests and the benchmark); how many ran. */
export function drainRegistrations(concurrency: number): Promise<number> {
  return jobSystem().drain(registrationItemJob, concurrency);
}
