/**
 * What /metrics says of a rollout that has not ended, from its clusters counted per wave and state
 * (never from its clusters one by one): how many are in each state, the failure budget used, and the
 * wave being worked on, decided as the runner decides them (progress.ts, budget.ts).
 */
import type { Amount } from "./amount";
import { failureBudget as budgetOf } from "./budget";
import { CLUSTER_STATES, TERMINAL, waveInProgress, type ClusterState } from "./progress";

/** Every state a rollout's cluster can be in, excluded included: each is exported, 0 included. */
export const ROLLOUT_CLUSTER_STATES = [...CLUSTER_STATES, "excluded"] as const;

export type WaveStateCount = { wave: number; state: string; count: number; lastFinishedMs: number };

export type RolloutFigures = {
  /** Clusters per state; a state the code does not know (a newer version's) counts as "unknown". */
  clusters: Record<string, number>;
  failures: number;
  /** Failures tolerated (maxFailures over the included clusters). */
  failureBudget: number;
  /** failures / failureBudget: above 1 the budget is spent (the runner pauses, with onFailure pause); +Inf for a failure when none is tolerated. */
  failureBudgetUsed: number;
  /** The wave being worked on (0-based), or soaking after; the last wave once all have ended; null with no waves. */
  wave: number | null;
  soaking: boolean;
  waves: number;
};

function amountOf(stored: unknown): Amount {
  const a = stored as { count?: unknown; percent?: unknown } | null;
  if (a && typeof a.count === "number") return { count: a.count };
  if (a && typeof a.percent === "number") return { percent: a.percent };
  return { count: 0 };
}

export function rolloutFigures(
  rollout: { maxFailures: unknown; minSuccessTime: unknown; waves: readonly number[]; groups: readonly WaveStateCount[] },
  now: Date,
): RolloutFigures {
  const known = new Set<string>(ROLLOUT_CLUSTER_STATES);
  const clusters: Record<string, number> = Object.fromEntries(ROLLOUT_CLUSTER_STATES.map((s) => [s, 0]));
  for (const g of rollout.groups) {
    const state = known.has(g.state) ? g.state : "unknown";
    clusters[state] = (clusters[state] ?? 0) + g.count;
  }
  const included = rollout.groups.filter((g) => g.state !== "excluded").reduce((n, g) => n + g.count, 0);
  const failures = clusters.failed!;
  const failureBudget = budgetOf({ maxFailures: amountOf(rollout.maxFailures) }, included);
  const failureBudgetUsed = failures === 0 ? 0 : failureBudget === 0 ? Infinity : failures / failureBudget;

  // Waves as the runner sees them: every planned wave, in order, with whether all its clusters ended.
  // One pass over the groups, then one over the waves: a plan of one cluster per wave (10,000 waves)
  // costs a scrape 10,000 steps, not waves × groups.
  const byWave = new Map<number, { ended: boolean; lastEndMs: number }>();
  for (const index of rollout.waves) byWave.set(index, { ended: true, lastEndMs: 0 });
  for (const g of rollout.groups) {
    if (g.wave < 0 || g.state === "excluded") {
      if (g.wave >= 0 && !byWave.has(g.wave)) byWave.set(g.wave, { ended: true, lastEndMs: 0 });
      continue;
    }
    const wave = byWave.get(g.wave) ?? { ended: true, lastEndMs: 0 };
    wave.ended &&= TERMINAL.includes(g.state as ClusterState);
    wave.lastEndMs = Math.max(wave.lastEndMs, g.lastFinishedMs);
    byWave.set(g.wave, wave);
  }
  const indexes = [...byWave.keys()].sort((a, b) => a - b);
  const summaries = indexes.map((index) => ({ index, ...byWave.get(index)! }));
  const soakMs = typeof rollout.minSuccessTime === "number" ? rollout.minSuccessTime : 0;
  const current = waveInProgress(summaries, soakMs, now);
  return {
    clusters,
    failures,
    failureBudget,
    failureBudgetUsed,
    wave: current ? current.index : (indexes.at(-1) ?? null),
    soaking: current?.soakUntil != null,
    waves: indexes.length,
  };
}
