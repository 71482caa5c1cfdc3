import { listWorkerStats, scheduleSummary } from "../store/sweeps";
import { listFleet, summarize } from "./fleet";
import { isDatabaseUnavailable } from "../store/errors";

/** Prometheus text exposition (version 0.0.4) of fleet and collector figures. Aggregates only: no names, no secrets. */
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

export async function metricsText(): Promise<string> {
  const [rows, workers, schedule] = await Promise.all([listFleet(), listWorkerStats(), scheduleSummary()]);
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
    workers.map((w) => [{ worker: w.worker }, w.sweeps]),
    "counter",
  );
  gauge(
    "fleetskew_sweep_errors_total",
    "Failed cluster sweeps per collector process.",
    workers.map((w) => [{ worker: w.worker }, w.errors]),
    "counter",
  );
  gauge(
    "fleetskew_sweep_duration_seconds_total",
    "Time spent sweeping per collector process.",
    workers.map((w) => [{ worker: w.worker }, w.durationMs / 1000]),
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
