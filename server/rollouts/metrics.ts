import { Gauge, type Registry } from "prom-client";
import { ROLLOUT_CLUSTER_STATES, rolloutFigures, type RolloutFigures } from "../domain/rollouts/figures";
import type { ActiveRolloutCounts } from "../store/rolloutCounts";

/**
 * Series of the rollouts that have not ended (running, paused, awaiting approval), for dashboards and
 * alerts on a rollout's progress: its clusters per state, the failure budget used and the wave being
 * worked on. Bounded: at most ROLLOUT_SERIES_LIMIT rollouts (running first, then paused, then awaiting
 * approval, oldest first), each with a fixed set of series; a rollout that ended has none.
 * Label values are the rollout's number and known words (a value the code does not know is
 * "unknown"), never free text from the database. docs/operations.md lists them.
 */
export const ROLLOUT_SERIES_LIMIT = 50;

export type ActiveRollouts = { total: number; rollouts: ActiveRolloutCounts[] };
type Read = () => Promise<ActiveRollouts>;

const KINDS = new Set(["upgrade", "bundle", "acknowledgement"]);
const STATUSES = new Set(["running", "paused", "awaiting-approval"]);
const known = (values: Set<string>, value: string) => (values.has(value) ? value : "unknown");

export function rolloutMetrics(registry: Registry, read: Read, now: () => Date = () => new Date()) {
  // The figures of one scrape, worked out once for every metric below.
  let figures: Promise<{ labels: { rollout: string; kind: string }; status: string; f: RolloutFigures }[]> | undefined;
  const each = () =>
    (figures ??= read().then(({ rollouts }) =>
      rollouts.map((r) => ({
        labels: { rollout: String(r.number), kind: known(KINDS, r.kind) },
        status: known(STATUSES, r.status),
        f: rolloutFigures(r, now()),
      })),
    ));
  new Gauge({
    name: "fleetskew_rollouts_active",
    help: `Rollouts that have not ended (running, paused or awaiting approval); the first ${ROLLOUT_SERIES_LIMIT} have series of their own.`,
    registers: [registry],
    async collect() {
      this.set((await read()).total);
    },
  });
  new Gauge({
    name: "fleetskew_rollout_clusters",
    help: "Clusters of a rollout that has not ended, per state (every state exported, 0 included).",
    labelNames: ["rollout", "kind", "status", "state"],
    registers: [registry],
    async collect() {
      for (const { labels, status, f } of await each())
        for (const state of [...ROLLOUT_CLUSTER_STATES, ...(f.clusters.unknown ? ["unknown"] : [])])
          this.set({ ...labels, status, state }, f.clusters[state] ?? 0);
    },
  });
  new Gauge({
    name: "fleetskew_rollout_failure_budget_used_ratio",
    help: "Failed clusters over the failures the rollout tolerates (maxFailures); above 1 the budget is spent, +Inf for a failure where none is tolerated.",
    labelNames: ["rollout", "kind"],
    registers: [registry],
    async collect() {
      for (const { labels, f } of await each()) this.set(labels, f.failureBudgetUsed);
    },
  });
  new Gauge({
    name: "fleetskew_rollout_wave",
    help: "The wave a rollout is working on or soaking after, from 0; the last once every wave has ended.",
    labelNames: ["rollout", "kind"],
    registers: [registry],
    async collect() {
      for (const { labels, f } of await each()) if (f.wave !== null) this.set(labels, f.wave);
    },
  });
  new Gauge({
    name: "fleetskew_rollout_waves",
    help: "The number of waves of a rollout that has not ended.",
    labelNames: ["rollout", "kind"],
    registers: [registry],
    async collect() {
      for (const { labels, f } of await each()) this.set(labels, f.waves);
    },
  });
}
