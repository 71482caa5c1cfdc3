import { followAcknowledgements } from "../acknowledgements/acknowledgements";
import { pruneAuthState } from "../auth/housekeeping";
import { followApplications } from "../bundles/follower";
import { followHubs } from "../hubs/follow";
import { advanceRollouts } from "../rollouts/runner";
import { kickRegistrations } from "../clusters/bulkRunner";
import { Collector, defaultCollectorOptions } from "../collector/collector";
import { loadSkewLimits } from "../fleet/skewLimits";
import { appConfig } from "../config/current";
import { pruneHistory } from "../store/history";
import { pruneProcesses } from "../store/processes";
import { startHeartbeat } from "./heartbeat";
import { processIdentity } from "./identity";
import { startJobs, type Job } from "./jobs";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Processes not seen for this long are forgotten (a stopped replica's figures leave /metrics). */
const FORGET_PROCESSES_MS = HOUR;

let started = false;

/**
 * The deployment's background jobs. Each runs once per interval in whichever process holds its lease
 * (server/runtime/jobs.ts), however many web replicas there are. Every one is also safe to run twice
 * (each change is conditional on the state it changes), so a lease lost mid-run costs a repeated
 * read, never a second write.
 */
export function backgroundJobs(config = appConfig(), now = () => Date.now()): Job[] {
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
    {
      name: "history-retention",
      everyMs: DAY,
      leaseMs: 30 * MINUTE,
      run: () => pruneHistory(new Date(now() - config.collector.retentionDays * DAY)),
    },
  ];
}

/**
 * Work the web process does besides serving: its heartbeat, the background jobs under leases, and
 * the collector (which shares the fleet with every other collector through per-cluster leases),
 * unless FLEETSKEW_WEB_SWEEPS=0 leaves sweeping to collector workers.
 */
export function startBackgroundWork(): void {
  if (started) return;
  started = true;
  const config = appConfig();
  const identity = processIdentity("web");
  const report = (what: string) => (error: unknown) => console.error(`fleetskew: ${what} failed:`, (error as Error).message ?? error);
  startHeartbeat(identity, report("heartbeat"));
  startJobs(backgroundJobs(config), identity.name, (job, error) => console.error(`fleetskew: ${job.name}: ${error}`));
  // Bulk registrations are a queue, not a job: each item is claimed under a lease of its own
  // (server/store/registrationJobs.ts), so every process drains it, and items a stopped process
  // held are taken up once their lease expires.
  void kickRegistrations();
  setInterval(() => void kickRegistrations(), 5_000).unref();
  // Web processes behind collector workers only serve: a sweep's CPU would delay their answers.
  if (!config.webSweeps) return;
  void loadSkewLimits()
    .then((limits) => {
      const collector = new Collector(defaultCollectorOptions(config, identity.name, () => limits.current()));
      // No stop on exit: each sweep is stored in one transaction, so an interrupted one leaves nothing behind.
      collector.start(report("collector"));
    })
    .catch(report("starting the collector"));
}
