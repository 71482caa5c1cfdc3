/**
 * The alerts Fleetskew defines, by name, as deploy/monitoring/ declares them for Prometheus and as
 * the console's alert list evaluates them from the store. A test checks both sides against this list
 * (names, severities, runbooks), so the console never shows an alert Prometheus would not raise.
 * Conventions: OpenShift's alerting-consistency enhancement (docs/alerts.md).
 */
export type Severity = "critical" | "warning" | "info";

export type AlertDefinition = {
  name: string;
  severity: Severity;
  /** deploy/monitoring file that declares it. */
  file: "fleet-alerts.yaml" | "prometheusrule.yaml";
  /** What it complements among OpenShift's own alerts, for docs/alerts.md. */
  complements: string;
};

/**
 * Where runbook_url points: docs/runbooks/<name>.md as published with the source. A team that
 * publishes its runbooks elsewhere patches the annotation (docs/alerts.md).
 */
export const RUNBOOK_BASE = "https://github.com/fleetskew/fleetskew/blob/main/docs/runbooks/";
export const runbookUrl = (name: string) => `${RUNBOOK_BASE}${name}.md`;

export const ALERTS: AlertDefinition[] = [
  {
    name: "FleetskewNextMinorBlockedByBootImageSkew",
    severity: "warning",
    file: "fleet-alerts.yaml",
    complements: "MCO Upgradeable=False ClusterBootImageSkewError, seen only once the cluster is at the enforcing release",
  },
  {
    name: "FleetskewNewestUpdateBlockedByBootImageSkew",
    severity: "info",
    file: "fleet-alerts.yaml",
    complements: "UpdateAvailable (CVO, info), which says an update is offered, not whether it can be reached",
  },
  {
    name: "FleetskewClusterNotUpgradeable",
    severity: "info",
    file: "fleet-alerts.yaml",
    complements: "ClusterNotUpgradeable (CVO, info, for 60m)",
  },
  {
    name: "FleetskewPinnedImagesFailing",
    severity: "warning",
    file: "fleet-alerts.yaml",
    complements:
      "no MCO alert covers a failed pre-load (only MachineConfigNode conditions); MCDRebootError and MCDPivotError cover the daemon's other failures",
  },
  {
    name: "FleetskewClusterUnreachable",
    severity: "warning",
    file: "fleet-alerts.yaml",
    complements: "ACM's ManagedCluster lease (ManagedClusterConditionAvailable)",
  },
  {
    name: "FleetskewAcknowledgementWaiting",
    severity: "info",
    file: "fleet-alerts.yaml",
    complements: "none: the acknowledgement workflow is Fleetskew's",
  },
  {
    name: "FleetskewRolloutPaused",
    severity: "info",
    file: "fleet-alerts.yaml",
    complements: "TALM ClusterGroupUpgrade Progressing=False (no alert upstream)",
  },
  {
    name: "FleetskewRolloutClustersFailed",
    severity: "warning",
    file: "fleet-alerts.yaml",
    complements: "TALM ClusterGroupUpgrade clusters[].state failed (no alert upstream)",
  },
  { name: "FleetskewCollectorStale", severity: "warning", file: "prometheusrule.yaml", complements: "none: Fleetskew's own health" },
  { name: "FleetskewSweepsFailing", severity: "warning", file: "prometheusrule.yaml", complements: "none: Fleetskew's own health" },
  { name: "FleetskewClustersFailing", severity: "info", file: "prometheusrule.yaml", complements: "none: Fleetskew's own health" },
  { name: "FleetskewMetricsAbsent", severity: "warning", file: "prometheusrule.yaml", complements: "TargetDown (cluster monitoring)" },
  { name: "FleetskewApprovalsPending", severity: "info", file: "prometheusrule.yaml", complements: "none: Fleetskew's own workflow" },
  { name: "FleetskewBackgroundJobFailing", severity: "warning", file: "prometheusrule.yaml", complements: "none: Fleetskew's own health" },
  { name: "FleetskewFollowerStopped", severity: "warning", file: "prometheusrule.yaml", complements: "none: Fleetskew's own health" },
];

export const alertNamed = (name: string) => ALERTS.find((a) => a.name === name)!;

/** Thresholds the rules and the alert list share. */
export const UNREACHABLE_SWEEPS = 3;
export const ACKNOWLEDGEMENT_WAIT_SECONDS = 86_400;
export const COLLECTOR_LAG_SECONDS = 600;
