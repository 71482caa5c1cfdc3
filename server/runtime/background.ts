import { followAcknowledgements } from "../acknowledgements/acknowledgements";
import { pruneAuthState } from "../auth/housekeeping";
import { followApplications } from "../bundles/follower";
import { followHubs } from "../hubs/follow";
import { advanceRollouts } from "../rollouts/runner";
import { registrationItemJob } from "../clusters/bulkRunner";
import { Collector, defaultCollectorOptions } from "../collector/collector";
import { loadSkewLimits } from "../fleet/skewLimits";
import { appConfig } from "../config/current";
import { keepHistory, refreshKeptFleetFactDays } from "../store/history";
import { pruneProcesses } from "../store/processes";
import { startHeartbeat } from "./heartbeat";
import { processIdentity } from "./identity";
import { defineRecurringJob, keepRecurring, startWorking, type JobType, type RecurringJob } from "./jobs";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Processes not seen for this long are forgotten (a stopped replica's figures leave /metrics). */
const FORGET_PROCESSES_MS = HOUR;

let started = false;

/**
 * The deployment's recurring background jobs. Each runs once per interval in whichever process
 * fetches it from the job system (server/runtime/jobs.ts), however many processes there are. Every
 * one is also safe to run twice (each change is conditional on the state it changes), so a lease lost
 * mid-run costs a repeated read, never a second write.
 */
export function backgroundJobs(config = appConfig(), now = () => Date.now()): RecurringJob[] {
  return [
    // Bundle applications and acknowledgements move on by themselves: sets created after a restart
    // or deleted on the cluster, upgrades noticed when done, requests expired, acknowledgements
    // checked against the MCO.
    {
      name: "follow-applications",
      everyMs: 5_000,
      leaseMs: MINUTE,
      run: async () => {
        await followApplications();
        await followAcknowledgements();
      },
    },
    // Expired sessions and throttles; closed windows of failed sign-ins reach the audit log soon after they close.
    {
      name: "housekeeping",
      everyMs: 5 * MINUTE,
      leaseMs: 2 * MINUTE,
      run: async () => {
        await pruneAuthState();
        await pruneProcesses(FORGET_PROCESSES_MS);
      },
    },
    // ACM hubs: one process at a time watches every hub; each run is one resync term, and the next
    // run starts right after it (server/hubs/follow.ts).
    {
      name: "hub-sync",
      everyMs: 5_000,
      leaseMs: MINUTE,
      run: () => followHubs({ termMs: config.hubResyncMs, debounceMs: 1_000, retryMs: 10_000 }),
    },
    // Rollouts move on a tick at a time from what the database holds (server/rollouts/runner.ts):
    // one process at a time, so a step is started by one runner only.
    {
      name: "rollouts",
      everyMs: 5_000,
      leaseMs: 2 * MINUTE,
      run: () => advanceRollouts(),
    },
    // The fleet's days summed again when a change was written into an older cluster's past or a
    // cluster removed (the fleet's chart counts every change meanwhile), or when a day has passed
    // since; otherwise the parts new clusters' first sweeps added are folded into the sums.
    {
      name: "fleet-days",
      everyMs: HOUR,
      leaseMs: 30 * MINUTE,
      run: async () => void (await refreshKeptFleetFactDays({ stale: true })),
    },
    // History: next months' partitions made ahead, months past the retention folded to one row a day
    // and dropped whole, daily rows past theirs deleted (server/store/history.ts keepHistory); then the
    // fleet's days summed again up to yesterday, for the fleet's chart (refreshKeptFleetFactDays).
    {
      name: "history-retention",
      everyMs: DAY,
      leaseMs: 30 * MINUTE,
      run: async () => {
        await keepHistory(new Date(now() - config.collector.retentionDays * DAY), new Date(now() - config.collector.dailyDays * DAY));
        await refreshKeptFleetFactDays();
      },
    },
  ];
}

let recurring: JobType<Record<string, never>>[] | undefined;

/** The recurring jobs, declared once per process (a job's name is its queue). */
export function recurringJobs(config = appConfig()): JobType<Record<string, never>>[] {
  recurring ??= backgroundJobs(config).map(defineRecurringJob);
  return recurring;
}

export type BackgroundWork = { collector: Collector | undefined; stop: () => Promise<void> };

/**
 * Background work besides serving, in whichever process runs it (the background process `npm start`
 * starts beside the web server, or `npm run collector`): its heartbeat, the jobs of the job system
 * (recurring jobs, registration items) and the collector (which shares the fleet with every other
 * collector through shards and per-cluster claims), unless `sweeps` is false.
 */

export async function startBackgroundWork(sweeps: boolean): Promise<BackgroundWork> {
  if (started) throw new Error("background work is started once per process");
  started = true;
  const config = appConfig();
  // Background processes, `npm start`'s own and `npm run collector`'s alike, are collectors in /metrics.
  const identity = processIdentity("collector");
  const report = (what: string) => (error: unknown) => console.error(`fleetskew: ${what} failed:`, (error as Error).message ?? error);
  const heartbeat = startHeartbeat(identity, report("heartbeat"));
  registrationItemJob.options.concurrency = config.registrationConcurrency;
  const jobs = recurringJobs(config);
  const system = await startWorking([...jobs, registrationItemJob]);
  const keeper = keepRecurring(jobs, report("scheduling the recurring jobs"));
  let collector: Collector | undefined;
  if (sweeps) {
    const limits = await loadSkewLimits();
    collector = new Collector({
      ...defaultCollectorOptions(config, identity.name, () => limits.current()),
      shardLeaseMs: config.collector.shardLeaseMs,
    });
    collector.start(report("collector"));
  }
  return {
    collector,
    async stop() {
      keeper.stop();
      heartbeat.stop();
      await Promise.all([collector?.stop(), system.stop()]);
    },
  };
}
