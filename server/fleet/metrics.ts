import { listWorkerStats, scheduleSummary } from "../store/sweeps";
import { attentionFigures, listJobs, listProcesses } from "../store/processes";
import { listFleet, summarize } from "./fleet";
import { isDatabaseUnavailable } from "../store/errors";

/**
 * Prometheus text exposition (version 0.0.4) of fleet and collector figures. Aggregates only: no
 * cluster names, no secrets. Any web replica answers for the whole deployment, from the database:
 * fleet-wide series are the same on every replica; per-process series carry `process` (the process's
 * name, `<role>:<host>:<pid>:<random>`) and `role` (web or collector). docs/operations.md.
 */
const esc = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

function quantile(sorted: number[], q: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

// Every status is always exported, 0 included, so that a series does not vanish when its count drops to 0.
const SKEW_STATUSES = ["ok", "at-risk", "blocked", "opted-out", "unknown"];
const READINESS_STATUSES = ["pass", "warn", "fail", "unknown"];
const withZeros = (statuses: string[], counts: Record<string, number>): [Record<string, string>, number][] =>
  [...new Set([...statuses, ...Object.keys(counts)])].map((status) => [{ status }, counts[status] ?? 0]);

/** Processes seen within this long are reported; older heartbeats belong to stopped processes. */
const PROCESS_SEEN_MS = 5 * 60_000;
const roleOf = (processName: string) => processName.split(":")[0] ?? "unknown";
const seconds = (d: Date | null) => (d ? d.getTime() / 1000 : 0);

export async function metricsText(): Promise<string> {
  const [rows, workers, schedule, processes, jobs, attention] = await Promise.all([
    listFleet(),
    listWorkerStats(),
    scheduleSummary(),
    listProcesses(PROCESS_SEEN_MS),
    listJobs(),
    attentionFigures(),
  ]);
  const s = summarize(rows);
  const out: string[] = [];
  const gauge = (name: string, help: string, values: [Record<string, string>, number][], type = "gauge") => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of values) {
      const l = Object.entries(labels).map(([k, v]) => `${k}="${esc(v)}"`);
      out.push(`${name}${l.length ? `{${l.join(",")}}` : ""} ${value}`);
    }
  };
  gauge("fleetskew_clusters", "Registered clusters.", [[{}, s.clusters]]);
  gauge("fleetskew_clusters_by_skew_status", "Clusters per boot-image skew status.", withZeros(SKEW_STATUSES, s.bySkew));
  gauge(
    "fleetskew_clusters_by_readiness",
    "Clusters per readiness status for their default target.",
    withZeros(READINESS_STATUSES, s.byReadiness),
  );
  gauge("fleetskew_clusters_stale", "Clusters whose last sweep failed or is too old.", [[{}, s.stale]]);
  gauge(
    "fleetskew_sweeps_total",
    "Cluster sweeps per collector process.",
    workers.map((w) => [{ process: w.worker, role: roleOf(w.worker) }, w.sweeps]),
    "counter",
  );
  gauge(
    "fleetskew_sweep_errors_total",
    "Failed cluster sweeps per collector process.",
    workers.map((w) => [{ process: w.worker, role: roleOf(w.worker) }, w.errors]),
    "counter",
  );
  gauge(
    "fleetskew_sweep_duration_seconds_total",
    "Time spent sweeping per collector process.",
    workers.map((w) => [{ process: w.worker, role: roleOf(w.worker) }, w.durationMs / 1000]),
    "counter",
  );
  const durations = [...schedule.lastDurations].sort((a, b) => a - b);
  out.push(
    "# HELP fleetskew_sweep_duration_seconds Duration of each cluster's latest sweep.",
    "# TYPE fleetskew_sweep_duration_seconds summary",
  );
  for (const q of [0.5, 0.95, 0.99]) out.push(`fleetskew_sweep_duration_seconds{quantile="${q}"} ${quantile(durations, q) / 1000}`);
  out.push(
    `fleetskew_sweep_duration_seconds_sum ${durations.reduce((a, b) => a + b, 0) / 1000}`,
    `fleetskew_sweep_duration_seconds_count ${durations.length}`,
  );
  gauge("fleetskew_sweeps_due", "Clusters due for a sweep now.", [[{}, schedule.due]]);
  gauge("fleetskew_clusters_failing", "Clusters whose latest sweep failed.", [[{}, schedule.failing]]);
  gauge("fleetskew_sweep_lag_seconds", "How late the most overdue cluster's sweep is; 0 when none is overdue.", [
    [{}, attention.sweepLagSeconds],
  ]);
  gauge("fleetskew_acknowledgements_pending", "Boot-image acknowledgements waiting for an approver.", [
    [{}, attention.pendingAcknowledgements],
  ]);
  gauge("fleetskew_acknowledgement_oldest_pending_seconds", "How long the oldest pending acknowledgement has waited.", [
    [{}, attention.oldestPendingAcknowledgementSeconds],
  ]);
  const byProcess = (value: (p: (typeof processes)[number]) => number): [Record<string, string>, number][] =>
    processes.map((p) => [{ process: p.process, role: p.role, host: p.host, pid: String(p.pid) }, value(p)]);
  gauge(
    "fleetskew_processes",
    "Processes seen in the last 5 minutes, per role.",
    (["web", "collector"] as const).map((role) => [{ role }, processes.filter((p) => p.role === role && p.ageSeconds < 60).length]),
  );
  gauge(
    "fleetskew_process_heartbeat_age_seconds",
    "Seconds since the process last wrote its heartbeat (every 10 s).",
    byProcess((p) => p.ageSeconds),
  );
  gauge(
    "fleetskew_process_start_time_seconds",
    "When the process started, Unix time.",
    byProcess((p) => seconds(p.startedAt)),
  );
  gauge(
    "fleetskew_process_resident_memory_bytes",
    "Resident memory of the process at its last heartbeat.",
    byProcess((p) => p.rssBytes),
  );
  gauge(
    "fleetskew_process_cpu_seconds_total",
    "CPU time (user and system) of the process at its last heartbeat.",
    byProcess((p) => p.cpuSeconds),
    "counter",
  );
  const byJob = (value: (j: (typeof jobs)[number]) => number): [Record<string, string>, number][] =>
    jobs.map((j) => [{ task: j.name }, value(j)]);
  gauge(
    "fleetskew_background_job_runs_total",
    "Runs of each background job, across all processes.",
    byJob((j) => j.runs),
    "counter",
  );
  gauge(
    "fleetskew_background_job_failures",
    "Consecutive failed runs of each background job (0 after a success).",
    byJob((j) => j.failures),
  );
  gauge(
    "fleetskew_background_job_last_run_timestamp_seconds",
    "When each background job last finished, Unix time.",
    byJob((j) => seconds(j.lastFinishedAt)),
  );
  return `${out.join("\n")}\n`;
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
