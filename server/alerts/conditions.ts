import type { SkewBlockSignal } from "../domain/alertSignals";
import type { ClusterAttention, RolloutAttention } from "../store/alerts";
import { ACKNOWLEDGEMENT_WAIT_SECONDS, alertNamed, COLLECTOR_LAG_SECONDS, runbookUrl, UNREACHABLE_SWEEPS, type Severity } from "./catalog";
import { formatDuration } from "../../lib/format";

/**
 * The alerts Fleetskew's rules would raise, evaluated from the store with the rules' conditions
 * (deploy/monitoring/): the console shows them without a Prometheus. The rules' `for:` durations are
 * Prometheus's to wait out; here a condition that holds is listed at once.
 */
export type FleetAlert = {
  alert: string;
  severity: Severity;
  /** The cluster it is about; null for the fleet or a rollout. */
  cluster: string | null;
  labels: Record<string, string>;
  summary: string;
  description: string;
  runbookUrl: string;
};

/** The labels every per-cluster series and alert carries: cluster, hub, cluster set, environment. */
export function clusterLabels(c: Pick<ClusterAttention, "name" | "hub" | "clusterSet" | "labels">): Record<string, string> {
  return {
    cluster: c.name,
    hub: c.hub ?? "",
    cluster_set: c.clusterSet ?? "",
    environment: c.labels.environment ?? c.labels.env ?? "",
  };
}

const days = (seconds: number) => (seconds >= 86_400 ? `${Math.floor(seconds / 86_400)} d` : `${Math.floor(seconds / 3600)} h`);

const STAGE_WORDS: Record<SkewBlockSignal["stage"], (b: SkewBlockSignal) => string> = {
  now: (b) => `is blocked now at ${b.at} (Upgradeable=False, ClusterBootImageSkewError), so the minor update to ${b.target} cannot start`,
  "on-the-way": (b) => `will be blocked once at ${b.at}, on the way to ${b.target}`,
  "after-update": (b) => `can update to ${b.target}, but once there the Machine Config Operator will block the next minor update`,
};

function make(name: string, cluster: string | null, labels: Record<string, string>, summary: string, description: string): FleetAlert {
  const def = alertNamed(name);
  return {
    alert: name,
    severity: def.severity,
    cluster,
    labels: { alertname: name, severity: def.severity, ...labels },
    summary,
    description,
    runbookUrl: runbookUrl(name),
  };
}

function skewAlerts(c: ClusterAttention, labels: Record<string, string>): FleetAlert[] {
  return (c.signals?.skewBlocks ?? []).map((b) => {
    const next = b.targetKind === "next-minor";
    const offered = next ? (b.offered ? ` The channel offers ${b.target} now.` : ` The channel does not offer ${b.target} yet.`) : "";
    return make(
      next ? "FleetskewNextMinorBlockedByBootImageSkew" : "FleetskewNewestUpdateBlockedByBootImageSkew",
      c.name,
      { ...labels, target: b.target, stage: b.stage, source: b.source },
      `${c.name}: boot-image skew blocks the ${next ? "next minor update" : "channel's newest update"} (${b.target})`,
      `${c.name} ${STAGE_WORDS[b.stage](b)}: "${b.message}".${offered} Fix: update the MachineSets' boot images (managed boot images, MachineSets mode All) or update them by hand and request a boot-image acknowledgement in Fleetskew.`,
    );
  });
}

function clusterAlerts(c: ClusterAttention): FleetAlert[] {
  const labels = clusterLabels(c);
  const out = skewAlerts(c, labels);
  const s = c.signals;
  if (s?.upgradeable)
    out.push(
      make(
        "FleetskewClusterNotUpgradeable",
        c.name,
        { ...labels, reason: s.upgradeable.reason },
        `${c.name} reports Upgradeable=False (${s.upgradeable.reason})`,
        `${s.upgradeable.from} on ${c.name} reports Upgradeable=False, reason ${s.upgradeable.reason}: "${s.upgradeable.message}". Minor updates cannot start until the cause is resolved; the cluster page's readiness checklist names it and the fix.`,
      ),
    );
  for (const p of s?.pinnedFailures ?? [])
    out.push(
      make(
        "FleetskewPinnedImagesFailing",
        c.name,
        { ...labels, node: p.node, pinned_image_set: p.set },
        `${c.name}: pre-loading pinned images failed on node ${p.node}`,
        `Node ${p.node} of ${c.name} failed to pre-load PinnedImageSet ${p.set}: "${p.error}". Fix the cause on the node (usually disk space: grow the disk or remove images from the set); the MCO retries by itself.`,
      ),
    );
  if (c.failedSweeps >= UNREACHABLE_SWEEPS)
    out.push(
      make(
        "FleetskewClusterUnreachable",
        c.name,
        { ...labels, status: c.contactStatus },
        `${c.name} has not been reached for ${c.failedSweeps} sweeps`,
        `Fleetskew's last ${c.failedSweeps} sweeps of ${c.name} failed (${c.contactStatus}): ${c.contactError ?? "no error recorded"}. Check the cluster's API and the credentials under Admin → Clusters (Test connection).`,
      ),
    );
  if (c.pendingAcknowledgements > 0 && c.oldestPendingSeconds > ACKNOWLEDGEMENT_WAIT_SECONDS)
    out.push(
      make(
        "FleetskewAcknowledgementWaiting",
        c.name,
        labels,
        `${c.name}: a boot-image acknowledgement has waited ${days(c.oldestPendingSeconds)} for approval`,
        `${c.pendingAcknowledgements} acknowledgement(s) for ${c.name} wait for an approver, the oldest for ${days(c.oldestPendingSeconds)}. An approver (not the requester) approves or rejects it under Acknowledgements; unapproved, it expires after 7 days.`,
      ),
    );
  return out;
}

function rolloutAlerts(r: RolloutAttention): FleetAlert[] {
  const labels = { rollout: String(r.number), kind: r.kind };
  const out: FleetAlert[] = [];
  if (r.status === "paused")
    out.push(
      make(
        "FleetskewRolloutPaused",
        null,
        labels,
        `Rollout ${r.number} (${r.kind}) is paused`,
        `Rollout ${r.number} is paused${r.statusReason ? `: ${r.statusReason}` : ""}. Open it under Rollouts, resolve the cause, then resume or abort it (an approver's decision).`,
      ),
    );
  if (r.failedClusters > 0)
    out.push(
      make(
        "FleetskewRolloutClustersFailed",
        null,
        labels,
        `Rollout ${r.number} (${r.kind}): ${r.failedClusters} cluster(s) failed`,
        `${r.failedClusters} cluster(s) of rollout ${r.number} failed. Its page lists each with the reason; fix them or let the failure budget decide.`,
      ),
    );
  return out;
}

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

/** Every alert the rules would raise now, most severe first, then by alert and cluster. */
export function evaluateFleetAlerts(input: {
  clusters: ClusterAttention[];
  rollouts: RolloutAttention[];
  sweepLagSeconds: number;
}): FleetAlert[] {
  const out = [...input.clusters.flatMap(clusterAlerts), ...input.rollouts.flatMap(rolloutAlerts)];
  if (input.sweepLagSeconds > COLLECTOR_LAG_SECONDS)
    out.push(
      make(
        "FleetskewCollectorStale",
        null,
        {},
        "Fleetskew's collectors are behind",
        `The most overdue cluster sweep is ${formatDuration(input.sweepLagSeconds * 1000)} late: what the console and these alerts say may be old. Check that the collector processes run and their logs.`,
      ),
    );
  return out.sort(
    (a, b) =>
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.alert.localeCompare(b.alert) ||
      (a.cluster ?? "").localeCompare(b.cluster ?? ""),
  );
}
