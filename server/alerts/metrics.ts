import { Gauge, type Registry } from "prom-client";
import type { ClusterAttention, RolloutAttention } from "../store/alerts";
import { clipLabelValue } from "../domain/clip";
import { clusterLabels } from "./conditions";

/**
 * Per-cluster series for the fleet alerts (deploy/monitoring/fleet-alerts.yaml): only clusters that
 * need action have any, so /metrics grows with the trouble, not with the fleet. Each series is 1 (or a
 * count, or an age) while its condition holds and absent otherwise, so an alert resolves when the
 * cluster is fixed. docs/alerts.md lists them.
 */
export type AttentionFigures = { clusters: ClusterAttention[]; rollouts: RolloutAttention[] };
type Read = () => Promise<AttentionFigures>;

const CLUSTER_LABELS = ["cluster", "hub", "cluster_set", "environment"];

const clippedLabels = (labels: Record<string, string>) =>
  Object.fromEntries(Object.entries(labels).map(([name, value]) => [name, clipLabelValue(value)]));

/**
 * At most this many clusters have per-cluster series in one scrape: a fleet of 100,000 with a tenth
 * in trouble would otherwise make /metrics several megabytes. The fleet totals
 * (`fleetskew_clusters_needing_action`) always count every cluster, and
 * `fleetskew_cluster_series_omitted` says how many were left out.
 */
export const MAX_CLUSTERS_WITH_SERIES = 2_000;

/** The worst signal first, so the clusters left out past the cap are those with the least urgent ones. */
const URGENCY = [
  "boot_image_skew_next_minor",
  "not_upgradeable",
  "pinned_images_failed",
  "boot_image_skew_newest",
  "failed_sweeps",
  "acknowledgement_pending",
];
const urgencyOf = (c: ClusterAttention) => Math.min(...signalsOf(c).map((s) => URGENCY.indexOf(s)), URGENCY.length);

const chosen = new WeakMap<ClusterAttention[], ClusterAttention[]>();

/**
 * The clusters that get series in this scrape: all of them up to the cap, else the most urgent, by
 * name within the same urgency, so the same clusters keep their series from one scrape to the next.
 */
export function clustersWithSeries(clusters: ClusterAttention[], cap = MAX_CLUSTERS_WITH_SERIES): ClusterAttention[] {
  if (clusters.length <= cap) return clusters;
  let picked = chosen.get(clusters);
  if (!picked) {
    picked = clusters
      .map((c) => ({ c, u: urgencyOf(c) }))
      .sort((a, b) => a.u - b.u || (a.c.name < b.c.name ? -1 : a.c.name > b.c.name ? 1 : 0))
      .slice(0, cap)
      .map((x) => x.c);
    chosen.set(clusters, picked);
  }
  return picked;
}

/** A gauge whose series are set at each scrape from the clusters that need action (up to the cap). */
function perCluster(
  registry: Registry,
  read: Read,
  spec: { name: string; help: string; labels?: string[] },
  each: (c: ClusterAttention, set: (labels: Record<string, string>, value: number) => void) => void,
) {
  new Gauge({
    name: spec.name,
    help: spec.help,
    labelNames: [...CLUSTER_LABELS, ...(spec.labels ?? [])],
    registers: [registry],
    async collect() {
      for (const c of clustersWithSeries((await read()).clusters)) {
        const base = clusterLabels(c);
        // Every value here is a cluster's word (its name, labels, a condition's reason, a node's name): clipped.
        each(c, (labels, value) => this.set(clippedLabels({ ...base, ...labels }), value));
      }
    },
  });
}

const SIGNALS = [
  "boot_image_skew_next_minor",
  "boot_image_skew_newest",
  "not_upgradeable",
  "pinned_images_failed",
  "failed_sweeps",
  "acknowledgement_pending",
];

function signalsOf(c: ClusterAttention): string[] {
  const s = c.signals;
  return [
    s?.skewBlocks.some((b) => b.targetKind === "next-minor") && "boot_image_skew_next_minor",
    s?.skewBlocks.some((b) => b.targetKind === "newest") && "boot_image_skew_newest",
    s?.upgradeable && "not_upgradeable",
    s?.pinnedFailureCount && "pinned_images_failed",
    c.failedSweeps > 0 && "failed_sweeps",
    c.pendingAcknowledgements > 0 && "acknowledgement_pending",
  ].filter((x): x is string => typeof x === "string");
}

function clusterSeries(registry: Registry, read: Read) {
  perCluster(
    registry,
    read,
    {
      name: "fleetskew_cluster_boot_image_skew_blocked",
      help: "1 while boot-image skew blocks the way to a target: target_kind next-minor or newest (the channel's newest update); stage now, on-the-way or after-update.",
      labels: ["target_kind", "target", "stage", "source", "offered"],
    },
    (c, set) => {
      for (const b of c.signals?.skewBlocks ?? [])
        set({ target_kind: b.targetKind, target: b.target, stage: b.stage, source: b.source, offered: String(b.offered) }, 1);
    },
  );
  perCluster(
    registry,
    read,
    {
      name: "fleetskew_cluster_not_upgradeable",
      help: "1 while the cluster reports Upgradeable=False, with its reason.",
      labels: ["reason", "from"],
    },
    (c, set) => {
      const u = c.signals?.upgradeable;
      if (u) set({ reason: u.reason, from: u.from }, 1);
    },
  );
  perCluster(
    registry,
    read,
    {
      name: "fleetskew_cluster_pinned_image_set_failed",
      help: "1 for each node and PinnedImageSet whose pre-load failed (the first 20 per cluster).",
      labels: ["node", "pinned_image_set"],
    },
    (c, set) => {
      for (const p of c.signals?.pinnedFailures ?? []) set({ node: p.node, pinned_image_set: p.set }, 1);
    },
  );
  perCluster(
    registry,
    read,
    { name: "fleetskew_cluster_failed_sweeps", help: "Consecutive failed sweeps of a cluster, while there are any.", labels: ["status"] },
    (c, set) => {
      if (c.failedSweeps > 0) set({ status: c.contactStatus }, c.failedSweeps);
    },
  );
  perCluster(
    registry,
    read,
    {
      name: "fleetskew_cluster_acknowledgement_pending_seconds",
      help: "How long the cluster's oldest pending boot-image acknowledgement has waited.",
    },
    (c, set) => {
      if (c.pendingAcknowledgements > 0) set({}, c.oldestPendingSeconds);
    },
  );
}

function rolloutSeries(registry: Registry, read: Read) {
  new Gauge({
    name: "fleetskew_rollout_paused",
    help: "1 while a rollout is paused.",
    labelNames: ["rollout", "kind"],
    registers: [registry],
    async collect() {
      for (const r of (await read()).rollouts) if (r.status === "paused") this.set({ rollout: String(r.number), kind: r.kind }, 1);
    },
  });
  new Gauge({
    name: "fleetskew_rollout_failed_clusters",
    help: "Failed clusters of a rollout still running or paused, while there are any.",
    labelNames: ["rollout", "kind"],
    registers: [registry],
    async collect() {
      for (const r of (await read()).rollouts)
        if (r.failedClusters > 0) this.set({ rollout: String(r.number), kind: r.kind }, r.failedClusters);
    },
  });
}

/** The fleet-alert series and their fleet totals (every signal exported, 0 included, so totals never vanish). */
export function attentionMetrics(registry: Registry, read: Read) {
  clusterSeries(registry, read);
  rolloutSeries(registry, read);
  new Gauge({
    name: "fleetskew_clusters_needing_action",
    help: "Clusters per signal that needs action (a cluster may count under several).",
    labelNames: ["signal"],
    registers: [registry],
    async collect() {
      const counts = Object.fromEntries(SIGNALS.map((s) => [s, 0]));
      for (const c of (await read()).clusters) for (const s of signalsOf(c)) counts[s]!++;
      for (const [signal, n] of Object.entries(counts)) this.set({ signal }, n);
    },
  });
  new Gauge({
    name: "fleetskew_cluster_series_omitted",
    help: `Clusters needing action left without per-cluster series in this scrape (at most ${MAX_CLUSTERS_WITH_SERIES} clusters have them; the totals count all).`,
    registers: [registry],
    async collect() {
      const { clusters } = await read();
      this.set(clusters.length - clustersWithSeries(clusters).length);
    },
  });
}
