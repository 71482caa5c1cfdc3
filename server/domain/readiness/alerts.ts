import type { ClusterSnapshot, FiringAlert } from "../snapshot";
import { plural, problemOf, unknown, warn, pass, type Context, type Draft, type Evidence } from "./model";

/**
 * The checks `oc adm upgrade recommend` makes from the cluster's firing alerts, group by group, as
 * openshift/oc pkg/cli/admin/upgrade/recommend/alerts.go `(*options).alerts` makes them
 * (docs/openshift.md §27): it skips alerts without a name and pending ones, then puts each firing
 * alert in the first group that takes it, in this order:
 *
 * 1. CriticalAlerts: severity "critical" (a critical PodDisruptionBudgetLimit is counted here only; oc
 *    just leaves out the PodDisruptionBudget group's "none firing" line for it);
 * 2. PodDisruptionBudgetAlerts: PodDisruptionBudgetAtLimit;
 * 3. PodImagePullAlerts: KubeContainerWaiting;
 * 4. NodeAlerts: KubeletHealthState, KubeNodeNotReady, KubeNodeReadinessFlapping, KubeNodeUnreachable;
 * 5. UpdatePrecheckAlerts: label openShiftUpdatePrecheck="true";
 * 6. VirtAlerts: VirtHandlerDaemonSetRolloutFailing, VMCannotBeEvicted (oc reports no "none firing"
 *    condition for this group; Fleetskew does, for a complete list).
 *
 * Any other alert (Watchdog, AlertmanagerReceiversNotConfigured, …) is not looked at. oc reports
 * these as concerns an admin may accept (`--accept`), never as blockers; the cluster-version operator
 * does not look at alerts. So a firing group is a warning here, not a failure.
 */
export type AlertGroup = "critical" | "pdb" | "image-pull" | "node" | "update-precheck" | "virt";

const NODE_ALERTS = new Set(["KubeletHealthState", "KubeNodeNotReady", "KubeNodeReadinessFlapping", "KubeNodeUnreachable"]);
const VIRT_ALERTS = new Set(["VirtHandlerDaemonSetRolloutFailing", "VMCannotBeEvicted"]);

/** The group oc puts an alert in (the if-chain of `(*options).alerts`); null when oc does not look at it. */
export function alertGroupOf(a: {
  name: string;
  severity: string | null;
  state?: string | null;
  updatePrecheck: boolean;
}): AlertGroup | null {
  if (!a.name || a.state === "pending") return null;
  if (a.severity === "critical") return "critical";
  if (a.name === "PodDisruptionBudgetAtLimit") return "pdb";
  if (a.name === "KubeContainerWaiting") return "image-pull";
  if (NODE_ALERTS.has(a.name)) return "node";
  if (a.updatePrecheck) return "update-precheck";
  if (VIRT_ALERTS.has(a.name)) return "virt";
  return null;
}

/** Firing alerts the collector keeps per group (a cluster in trouble fires hundreds); the rest are counted. */
export const MAX_ALERTS_PER_GROUP = 20;
/** Characters kept of an alert's summary and description, and of its name and labels. */
export const MAX_ALERT_TEXT = 300;
export const MAX_ALERT_LABEL = 128;

/** Alerts named in one check's detail; the rest are counted. */
const NAMED = 10;

/** A firing alert by name; without one, where the alerts are read (the querier's Route). */
const EVIDENCE = (a?: FiringAlert): Evidence =>
  a
    ? { kind: "Alert", name: a.name, ...(a.namespace ? { namespace: a.namespace } : {}), field: `labels.severity=${a.severity ?? ""}` }
    : { kind: "Route", name: "thanos-querier", namespace: "openshift-monitoring", field: "/api/v1/alerts" };

function describe(a: FiringAlert): string {
  const where = [a.namespace ? `namespace ${a.namespace}` : "", a.podDisruptionBudget ? `PodDisruptionBudget ${a.podDisruptionBudget}` : ""]
    .filter(Boolean)
    .join(", ");
  const summary = a.summary ?? a.description;
  return `${a.severity ?? "unlabelled"} alert ${a.name}${where ? ` (${where})` : ""}${summary ? `: ${summary.replace(/\.?$/, "")}` : ""}`;
}

/** Why the alerts are not known, or null when they were read. */
function unread(s: ClusterSnapshot): string | null {
  if (s.alerts) return null;
  if (s.alerts === undefined) return "Firing alerts were not read in this snapshot";
  return `Firing alerts could not be read: ${problemOf(s, "Alerts") ?? "the cluster's Thanos querier did not answer"}`;
}

const UNREAD_HINT =
  "Fleetskew reads alerts from the Thanos querier through its Route, or through the hub's cluster-proxy (docs/rbac.md, “Firing alerts”); " +
  "until it can, run `oc adm upgrade recommend` on the cluster, which reads the same alerts.";

function groupCheck(
  c: Context,
  groups: AlertGroup[],
  happy: string,
  concern: string,
  remediation: string,
  also: (a: FiringAlert) => boolean = () => false,
): Draft {
  const why = unread(c.s);
  if (why) return unknown(`${why}. ${happy.replace(/\.$/, "")} cannot be confirmed.`, [EVIDENCE()], UNREAD_HINT);
  const facts = c.s.alerts!;
  const firing = (facts.firing ?? []).filter((a) => {
    const g = alertGroupOf(a);
    return (g && groups.includes(g)) || also(a);
  });
  // The collector keeps up to MAX_ALERTS_PER_GROUP of each group, so a group with none kept had none firing.
  if (firing.length === 0) return pass(happy, [EVIDENCE()]);
  const leftOut = Math.max(0, (facts.relevant ?? 0) - (facts.firing ?? []).length);
  const named = firing.slice(0, NAMED).map(describe);
  const more = firing.length > NAMED ? `; and ${firing.length - NAMED} more` : "";
  const kept = leftOut
    ? ` (${plural(leftOut, "more alert")} of the groups checked ${leftOut === 1 ? "was" : "were"} firing beyond what Fleetskew keeps)`
    : "";
  return warn(
    `${plural(firing.length, "alert")} firing, ${concern}: ${named.join("; ")}${more}${kept}.`,
    firing.slice(0, NAMED).map(EVIDENCE),
    remediation,
  );
}

/** oc's recommended/CriticalAlerts ("No critical alerts firing."). */
export function criticalAlertsCheck(c: Context): Draft {
  return groupCheck(
    c,
    ["critical"],
    "No critical alerts firing.",
    "suggesting significant cluster issues worth investigating before updating",
    "Investigate each critical alert (its runbook_url) and resolve it before updating; `oc adm upgrade recommend --accept <alert>` records a deliberate acceptance.",
  );
}

/**
 * oc's recommended/PodDisruptionBudgetAlerts ("No PodDisruptionBudget alerts firing."): PodDisruptionBudgetAtLimit.
 * A critical PodDisruptionBudgetLimit is one of the critical alerts: oc reports it there and, for this
 * group, only leaves out its "none firing" line; it is not counted a second time here.
 */
export function pdbAlertsCheck(c: Context): Draft {
  const drafted = groupCheck(
    c,
    ["pdb"],
    "No PodDisruptionBudget alerts firing.",
    "which might slow node drains: a PodDisruptionBudget at its limit lets no pod be evicted, and the node update waits",
    "Scale the workload up, or relax the PodDisruptionBudget, so that at least one pod may be disrupted before the update drains nodes.",
  );
  const critical = (c.s.alerts?.firing ?? []).filter((a) => a.name === "PodDisruptionBudgetLimit" && a.severity === "critical");
  if (drafted.status !== "pass" || critical.length === 0) return drafted;
  return pass(
    `No PodDisruptionBudgetAtLimit alert firing; the critical PodDisruptionBudgetLimit alert (${critical.map(describe).join("; ")}) is one of the critical alerts, shown there.`,
    critical.map(EVIDENCE),
  );
}

/** oc's recommended/PodImagePullAlerts ("No Pod container image pull alerts firing."). */
export function imagePullAlertsCheck(c: Context): Draft {
  return groupCheck(
    c,
    ["image-pull"],
    "No Pod container image pull alerts firing.",
    "which may slow workload redistribution during rolling node updates",
    "Fix the containers waiting on their images (pull secret, mirror, image name) before nodes start rebooting.",
  );
}

/** oc's recommended/NodeAlerts ("No Node alerts firing."). */
export function nodeAlertsCheck(c: Context): Draft {
  return groupCheck(
    c,
    ["node"],
    "No Node alerts firing.",
    "which may slow workload redistribution during rolling node updates",
    "Bring the affected nodes back to Ready (kubelet health, network reachability) before updating.",
  );
}

/** oc's recommended/UpdatePrecheckAlerts ("No alerts with the openShiftUpdatePrecheck label true are firing."). */
export function updatePrecheckAlertsCheck(c: Context): Draft {
  return groupCheck(
    c,
    ["update-precheck"],
    "No alerts with the openShiftUpdatePrecheck label true are firing.",
    "suggesting issues worth investigating before updating the cluster",
    "These alerts are labelled by their authors as worth resolving before an update; follow each alert's runbook.",
  );
}

/** oc's recommended/VirtAlerts (oc names only the firing ones). */
export function virtAlertsCheck(c: Context): Draft {
  return groupCheck(
    c,
    ["virt"],
    "No VirtHandlerDaemonSetRolloutFailing or VMCannotBeEvicted alerts firing.",
    "which may slow workload redistribution during rolling node updates",
    "Make the virtual machines evictable (live migration) and the virt-handler DaemonSet healthy before nodes drain.",
  );
}
