import { followAcknowledgements } from "../acknowledgements/acknowledgements";
import { pruneAuthState } from "../auth/housekeeping";
import { followApplications } from "../bundles/follower";
import { Collector, defaultCollectorOptions, workerName } from "../collector/collector";
import { loadSkewLimits } from "../fleet/skewLimits";
import { appConfig } from "../config/current";
import { pruneHistory } from "../store/history";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FOLLOW_MS = 5_000;

let started = false;

/**
 * Work the web process does besides serving: the collector (it shares the fleet with any
 * `npm run collector` workers through leases) and housekeeping.
 */
export function startBackgroundWork(): void {
  if (started) return;
  started = true;
  const config = appConfig();
  const report = (what: string) => (error: unknown) => console.error(`fleetskew: ${what} failed:`, (error as Error).message);
  void pruneAuthState().catch(report("housekeeping"));
  // Every 5 minutes: closed windows of failed sign-ins reach the audit log soon after they close.
  setInterval(() => void pruneAuthState().catch(report("housekeeping")), 5 * 60_000).unref();
  const prune = () => pruneHistory(new Date(Date.now() - config.collector.retentionDays * DAY)).catch(report("history retention"));
  // Once at start as well: a process restarted more often than daily would otherwise never prune.
  void prune();
  setInterval(prune, DAY).unref();
  // Bundle applications and acknowledgements move on by themselves: sets created after a restart,
  // upgrades noticed when done, requests expired, acknowledgements checked against the MCO.
  let following = false;
  const follow = async () => {
    if (following) return;
    following = true;
    try {
      await followApplications().catch(report("following bundle applications"));
      await followAcknowledgements().catch(report("following acknowledgements"));
    } finally {
      following = false;
    }
  };
  void follow();
  setInterval(() => void follow(), FOLLOW_MS).unref();
  void loadSkewLimits()
    .then((limits) => {
      const collector = new Collector(defaultCollectorOptions(config, workerName("web"), () => limits.current()));
      // No stop on exit: each sweep is stored in one transaction, so an interrupted one leaves nothing behind.
      collector.start(report("collector"));
    })
    .catch(report("starting the collector"));
}
