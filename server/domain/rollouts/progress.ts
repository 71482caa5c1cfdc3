/**
 * What a running rollout does next, decided from its saved state alone: which clusters' steps start
 * (inside their window), which time out, when a wave has soaked, and when the failure budget stops
 * the rollout. The runner applies these decisions; keeping them pure means a restarted runner takes
 * the same decisions from the same rows (the state is the database, never a process's memory).
 *
 * Semantics follow Open Cluster Management's progressive rollout where they overlap
 * (open-cluster-management-io/sdk-go pkg/apis/cluster/v1alpha1/rollout.go): a failure or a timed-out
 * cluster counts against maxFailures, the rollout is breached when failures exceed it, mandatory
 * groups tolerate none, and minSuccessTime is a soak after success before the next clusters start.
 */
import type { MaintenanceWindow } from "./windows";
import { nextStart } from "./windows";
import { formatDuration } from "../../../lib/format";

export const CLUSTER_STATES = ["pending", "waiting-window", "running", "succeeded", "failed", "skipped"] as const;
export type ClusterState = (typeof CLUSTER_STATES)[number];
export const TERMINAL: readonly ClusterState[] = ["succeeded", "failed", "skipped"];

export type ProgressCluster = {
  name: string;
  wave: number;
  state: ClusterState;
  /** When its step started (the intent was recorded). */
  startedAt: Date | null;
  finishedAt: Date | null;
};

export type ProgressWave = { index: number; name: string; mandatory: boolean; releasedAt: Date | null };

export type ProgressStrategy = {
  minSuccessMs: number;
  /** null: no deadline (OCM's `None`). */
  progressDeadlineMs: number | null;
  failureBudget: number;
  onFailure: "pause" | "continue";
  releaseEachWave: boolean;
  /** How long one cluster's step is expected to take, for fitting it into a window. */
  stepMs: number;
};

export type Decision =
  | { type: "start"; cluster: string }
  | { type: "wait-for-window"; cluster: string; opensAt: Date }
  | { type: "time-out"; cluster: string; reason: string }
  | { type: "pause"; reason: string }
  | { type: "await-release"; wave: number }
  | { type: "soak"; wave: number; until: Date }
  | { type: "complete" };

const isTerminal = (c: ProgressCluster) => TERMINAL.includes(c.state);

/** What deciding the current wave needs of each wave: whether all its clusters ended, and when the last did (ms, 0: never). */
export type WaveSummary = { index: number; ended: boolean; lastEndMs: number };

/**
 * The wave being worked on: the first whose clusters have not all ended, or that is still soaking
 * (every wave but the last soaks `soakMs` after its last cluster ended); null once all are done.
 * `waves` in order. The runner decides from it, and /metrics reports it from per-wave counts.
 */
export function waveInProgress(waves: readonly WaveSummary[], soakMs: number, now: Date): { index: number; soakUntil: Date | null } | null {
  for (const wave of waves) {
    if (!wave.ended) return { index: wave.index, soakUntil: null };
    const soakUntil = new Date(wave.lastEndMs + soakMs);
    const isLast = wave.index === waves[waves.length - 1]!.index;
    if (!isLast && soakMs > 0 && soakUntil > now) return { index: wave.index, soakUntil };
  }
  return null;
}

function currentWave(waves: readonly ProgressWave[], clusters: readonly ProgressCluster[], soakMs: number, now: Date) {
  const byWave = new Map<number, ProgressCluster[]>();
  for (const c of clusters) {
    const members = byWave.get(c.wave);
    if (members) members.push(c);
    else byWave.set(c.wave, [c]);
  }
  const summaries = waves.map((w) => {
    const members = byWave.get(w.index) ?? [];
    return {
      index: w.index,
      ended: members.every(isTerminal),
      lastEndMs: members.reduce((last, c) => Math.max(last, c.finishedAt?.getTime() ?? 0), 0),
    };
  });
  const found = waveInProgress(summaries, soakMs, now);
  if (!found) return null;
  const wave = waves.find((w) => w.index === found.index)!;
  return { wave, members: byWave.get(wave.index) ?? [], soakUntil: found.soakUntil };
}

export function decideProgress(
  waves: readonly ProgressWave[],
  clusters: readonly ProgressCluster[],
  strategy: ProgressStrategy,
  now: Date,
  windowOf: (cluster: string) => MaintenanceWindow | null,
): Decision[] {
  const decisions: Decision[] = [];
  // A step past its deadline fails first: it counts against the budget below.
  const timedOut = new Set<string>();
  if (strategy.progressDeadlineMs !== null) {
    for (const c of clusters) {
      if (c.state === "running" && c.startedAt && now.getTime() - c.startedAt.getTime() > strategy.progressDeadlineMs) {
        timedOut.add(c.name);
        decisions.push({
          type: "time-out",
          cluster: c.name,
          reason: `did not finish within the progress deadline (${formatDuration(strategy.progressDeadlineMs)})`,
        });
      }
    }
  }
  const failed = (c: ProgressCluster) => c.state === "failed" || timedOut.has(c.name);
  const mandatoryFailure = clusters.find((c) => failed(c) && waves.find((w) => w.index === c.wave)?.mandatory);
  const failures = clusters.filter(failed).length;
  if (strategy.onFailure === "pause") {
    if (mandatoryFailure)
      return [
        ...decisions,
        {
          type: "pause",
          reason: `${mandatoryFailure.name} failed in ${waves.find((w) => w.index === mandatoryFailure.wave)!.name}, which tolerates no failure`,
        },
      ];
    if (failures > strategy.failureBudget)
      return [
        ...decisions,
        {
          type: "pause",
          reason: `${failures} ${failures === 1 ? "cluster" : "clusters"} failed, more than the ${strategy.failureBudget} the plan tolerates`,
        },
      ];
  }
  const current = currentWave(waves, clusters, strategy.minSuccessMs, now);
  if (!current) return [...decisions, { type: "complete" }];
  if (current.soakUntil) return [...decisions, { type: "soak", wave: current.wave.index, until: current.soakUntil }];
  if (
    strategy.releaseEachWave &&
    current.wave.index > 0 &&
    !current.wave.releasedAt &&
    current.members.every((c) => c.state === "pending" || c.state === "waiting-window" || c.state === "skipped")
  )
    return [...decisions, { type: "await-release", wave: current.wave.index }];
  for (const c of current.members) {
    if (c.state !== "pending" && c.state !== "waiting-window") continue;
    const window = windowOf(c.name);
    const start = window ? nextStart(window, now, strategy.stepMs) : now;
    decisions.push(
      start.getTime() <= now.getTime() ? { type: "start", cluster: c.name } : { type: "wait-for-window", cluster: c.name, opensAt: start },
    );
  }
  return decisions;
}
