import { FLEET_WIDE } from "../domain/grants";
import { Counter, Gauge, Registry, Summary } from "prom-client";
import { listWorkerStats, scheduleSummary } from "../store/sweeps";
import { listShards } from "../store/shards";
import { attentionFigures, listJobs, listProcesses } from "../store/processes";
import { staleBefore } from "./fleetList";
import { isDatabaseUnavailable } from "../store/errors";
import { fleetCounts, listClustersNeedingAction, listRolloutsNeedingAction } from "../store/alerts";
import { attentionMetrics } from "../alerts/metrics";
import { activeRolloutCounts } from "../store/rolloutCounts";
import { ROLLOUT_SERIES_LIMIT, rolloutMetrics } from "../rollouts/metrics";

/**
 * Prometheus exposition (prom-client, text format 0.0.4) of fleet and collector figures: aggregates,
 * and per-cluster series only for clusters that need action (names and labels, never secrets;
 * server/alerts/metrics.ts). Scrapers present a token or an admin's session (app/metrics/route.ts). Any web replica answers for the whole deployment, from the
 * database: fleet-wide series are the same on every replica; per-process series carry `process` (the
 * process's name, `<role>:<host>:<pid>:<random>`) and `role` (web or collector). docs/operations.md.
 *
 * Each scrape builds a registry of its own whose metrics read their figures in `collect`, from one
 * read of the database shared by the scrape: the figures belong to the deployment, not to this
 * process, so nothing is counted in memory, and two scrapes at once cannot mix their figures.
 */

// Every status is always exported, 0 included, so that a series does not vanish when its count drops to 0.
const SKEW_STATUSES = ["ok", "at-risk", "blocked", "opted-out", "unknown"];
const READINESS_STATUSES = ["pass", "warn", "fail", "unknown"];
const withZeros = (statuses: string[], counts: Record<string, number>): [string, number][] =>
  [...new Set([...statuses, ...Object.keys(counts)])].map((status) => [status, counts[status] ?? 0]);

/** Processes seen within this long are reported; older heartbeats belong to stopped processes. */
const PROCESS_SEEN_MS = 5 * 60_000;
const roleOf = (processName: string) => processName.split(":")[0] ?? "unknown";
const seconds = (d: Date | null) => (d ? d.getTime() / 1000 : 0);

/** What one scrape reads from the database. */
async function readFigures() {
  // The fleet's counts come from one grouped query, not from 10,000 rows read into memory.
  const [fleet, workers, schedule, processes, jobs, attention, needing, rollouts, active, shards] = await Promise.all([
    fleetCounts(staleBefore()),
    listWorkerStats(),
    scheduleSummary(),
    listProcesses(PROCESS_SEEN_MS),
    listJobs(),
    attentionFigures(),
    // /metrics is fleet-wide by design: it is scraped by the platform's monitoring, not read by a person.
    listClustersNeedingAction(FLEET_WIDE),
    listRolloutsNeedingAction(FLEET_WIDE),
    activeRolloutCounts(ROLLOUT_SERIES_LIMIT),
    listShards(),
  ]);
  return { fleet, workers, schedule, processes, jobs, attention, needing: { clusters: needing, rollouts }, active, shards };
}
type Figures = Awaited<ReturnType<typeof readFigures>>;
type Read = () => Promise<Figures>;

/** A gauge with no labels whose value is read at each scrape. */
function single(registry: Registry, read: Read, name: string, help: string, value: (f: Figures) => number) {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(value(await read()));
    },
  });
}

function fleetMetrics(registry: Registry, read: Read) {
  single(registry, read, "fleetskew_clusters", "Registered clusters.", (f) => f.fleet.clusters);
  new Gauge({
    name: "fleetskew_clusters_by_skew_status",
    help: "Clusters per boot-image skew status.",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      for (const [status, n] of withZeros(SKEW_STATUSES, (await read()).fleet.bySkew)) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "fleetskew_clusters_by_readiness",
    help: "Clusters per readiness status for their default target.",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      for (const [status, n] of withZeros(READINESS_STATUSES, (await read()).fleet.byReadiness)) this.set({ status }, n);
    },
  });
  single(registry, read, "fleetskew_clusters_stale", "Clusters whose last sweep failed or is too old.", (f) => f.fleet.stale);
}

function sweepMetrics(registry: Registry, read: Read) {
  // Counters kept in the database per collector process; each scrape exports their current totals.
  const perWorker = (name: string, help: string, value: (w: Figures["workers"][number]) => number) =>
    new Counter({
      name,
      help,
      labelNames: ["process", "role"],
      registers: [registry],
      async collect() {
        for (const w of (await read()).workers) this.inc({ process: w.worker, role: roleOf(w.worker) }, value(w));
      },
    });
  perWorker("fleetskew_sweeps_total", "Cluster sweeps per collector process.", (w) => w.sweeps);
  perWorker("fleetskew_sweep_errors_total", "Failed cluster sweeps per collector process.", (w) => w.errors);
  perWorker("fleetskew_sweep_duration_seconds_total", "Time spent sweeping per collector process.", (w) => w.durationMs / 1000);
  new Summary({
    name: "fleetskew_sweep_duration_seconds",
    help: "Duration of each cluster's latest sweep.",
    percentiles: [0.5, 0.95, 0.99],
    registers: [registry],
    async collect() {
      for (const ms of (await read()).schedule.lastDurations) this.observe(ms / 1000);
    },
  });
  // One series per collector holding shards (a few, however large the fleet), and the shards nobody holds.
  new Gauge({
    name: "fleetskew_collector_shards",
    help: "Shards (an ACM hub's clusters, or the directly registered ones) each collector process holds.",
    labelNames: ["process"],
    registers: [registry],
    async collect() {
      const held = new Map<string, number>();
      for (const s of (await read()).shards) if (s.held && s.owner) held.set(s.owner, (held.get(s.owner) ?? 0) + 1);
      for (const [process, n] of held) this.set({ process }, n);
    },
  });
  single(
    registry,
    read,
    "fleetskew_collector_shards_unheld",
    "Shards no live collector holds: their clusters are not swept until one takes them.",
    (f) => f.shards.filter((s) => !s.held).length,
  );
  single(registry, read, "fleetskew_sweeps_due", "Clusters due for a sweep now.", (f) => f.schedule.due);
  single(registry, read, "fleetskew_clusters_failing", "Clusters whose latest sweep failed.", (f) => f.schedule.failing);
  single(
    registry,
    read,
    "fleetskew_sweep_lag_seconds",
    "How late the most overdue cluster's sweep is; 0 when none is overdue.",
    (f) => f.attention.sweepLagSeconds,
  );
}

function acknowledgementMetrics(registry: Registry, read: Read) {
  single(
    registry,
    read,
    "fleetskew_acknowledgements_pending",
    "Boot-image acknowledgements waiting for an approver.",
    (f) => f.attention.pendingAcknowledgements,
  );
  single(
    registry,
    read,
    "fleetskew_acknowledgement_oldest_pending_seconds",
    "How long the oldest pending acknowledgement has waited.",
    (f) => f.attention.oldestPendingAcknowledgementSeconds,
  );
}

function processMetrics(registry: Registry, read: Read) {
  new Gauge({
    name: "fleetskew_processes",
    help: "Processes seen in the last 5 minutes, per role.",
    labelNames: ["role"],
    registers: [registry],
    async collect() {
      const { processes } = await read();
      for (const role of ["web", "collector"]) this.set({ role }, processes.filter((p) => p.role === role && p.ageSeconds < 60).length);
    },
  });
  type Process = Figures["processes"][number];
  const labelsOf = (p: Process) => ({ process: p.process, role: p.role, host: p.host, pid: String(p.pid) });
  const labelNames = ["process", "role", "host", "pid"];
  const perProcess = (name: string, help: string, value: (p: Process) => number) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        for (const p of (await read()).processes) this.set(labelsOf(p), value(p));
      },
    });
  perProcess(
    "fleetskew_process_heartbeat_age_seconds",
    "Seconds since the process last wrote its heartbeat (every 10 s).",
    (p) => p.ageSeconds,
  );
  perProcess("fleetskew_process_start_time_seconds", "When the process started, Unix time.", (p) => seconds(p.startedAt));
  perProcess("fleetskew_process_resident_memory_bytes", "Resident memory of the process at its last heartbeat.", (p) => p.rssBytes);
  new Counter({
    name: "fleetskew_process_cpu_seconds_total",
    help: "CPU time (user and system) of the process at its last heartbeat.",
    labelNames,
    registers: [registry],
    async collect() {
      for (const p of (await read()).processes) this.inc(labelsOf(p), p.cpuSeconds);
    },
  });
}

function backgroundJobMetrics(registry: Registry, read: Read) {
  new Counter({
    name: "fleetskew_background_job_runs_total",
    help: "Runs of each background job, across all processes.",
    labelNames: ["task"],
    registers: [registry],
    async collect() {
      for (const j of (await read()).jobs) this.inc({ task: j.name }, j.runs);
    },
  });
  const perJob = (name: string, help: string, value: (j: Figures["jobs"][number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["task"],
      registers: [registry],
      async collect() {
        for (const j of (await read()).jobs) this.set({ task: j.name }, value(j));
      },
    });
  perJob("fleetskew_background_job_failures", "Consecutive failed runs of each background job (0 after a success).", (j) => j.failures);
  perJob("fleetskew_background_job_last_run_timestamp_seconds", "When each background job last finished, Unix time.", (j) =>
    seconds(j.lastFinishedAt),
  );
}

/** The scrape's text: a fresh registry, its metrics' figures read from the database once. */
export async function metricsText(): Promise<string> {
  const registry = new Registry();
  let figures: Promise<Figures> | undefined;
  const read: Read = () => (figures ??= readFigures());
  fleetMetrics(registry, read);
  sweepMetrics(registry, read);
  acknowledgementMetrics(registry, read);
  processMetrics(registry, read);
  backgroundJobMetrics(registry, read);
  attentionMetrics(registry, async () => (await read()).needing);
  rolloutMetrics(registry, async () => (await read()).active);
  return registry.metrics();
}

/** The scrape's text, or null while the database cannot be read (the route then answers 503). */
export async function metricsOrUnavailable(): Promise<string | null> {
  try {
    return await metricsText();
  } catch (error) {
    if (isDatabaseUnavailable(error)) return null;
    throw error;
  }
}
