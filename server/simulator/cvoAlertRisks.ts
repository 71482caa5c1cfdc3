import { REASON } from "./cvo";
import type { KubeObject } from "./objectStore";
import type { SimAlert } from "./monitoring";

/**
 * The CVO's firing alerts as update risks (openshift/cluster-version-operator pkg/risk/alert/alert.go,
 * on release-4.22 and later; docs/openshift.md §27.2): only where ClusterUpdateAcceptRisks is on
 * (TechPreviewNoUpgrade, DevPreviewNoUpgrade) and the cluster is not HyperShift. Pending alerts and
 * alerts without a name are skipped; then critical ones, PodDisruptionBudgetAtLimit, the pull, node and
 * Virt alerts, and alerts labelled openShiftUpdatePrecheck="true" each become a risk named after the
 * alert, rule Always, Applies=True (reason Alert:firing), attached to every update, z-streams included:
 * every available update moves into conditionalUpdates, and pkg/cvo/availableupdates.go
 * `evaluateConditionalUpdate` gives it Recommended=False unless every such risk is accepted.
 */

const SLOWING = new Set([
  "KubeContainerWaiting",
  "KubeletHealthState",
  "KubeNodeNotReady",
  "KubeNodeReadinessFlapping",
  "KubeNodeUnreachable",
  "VirtHandlerDaemonSetRolloutFailing",
  "VMCannotBeEvicted",
]);
const NO_RUNBOOK = "https://github.com/openshift/runbooks/tree/master/alerts?runbook=notfound";

type Risk = {
  name: string;
  message: string;
  url: string;
  matchingRules: { type: "Always" }[];
  conditions: { type: "Applies"; status: string; reason: string; message: string; lastTransitionTime: string }[];
};

/** `alertsToRisks`: one risk per alert name, sorted by name. */
export function alertRisks(alerts: readonly SimAlert[], activeAt: string): Risk[] {
  const byName = new Map<string, Risk>();
  for (const a of alerts) {
    const name = a.labels.alertname;
    const state = a.state ?? "firing";
    if (!name || state === "pending") continue;
    const severity = a.labels.severity ?? "";
    const impact =
      severity === "critical"
        ? "suggesting significant cluster issues worth investigating"
        : name === "PodDisruptionBudgetAtLimit"
          ? "which might slow node drains"
          : SLOWING.has(name)
            ? "which may slow workload redistribution during rolling node updates"
            : a.labels.openShiftUpdatePrecheck === "true"
              ? "suggesting issues worth investigating before updating the cluster"
              : null;
    if (!impact) continue;
    const summary = a.annotations?.summary || name;
    const description = a.annotations?.description
      ? ` The alert description is: ${a.annotations.description}`
      : " The alert has no description.";
    const runbook = a.annotations?.runbook_url ?? "<alert does not have a runbook_url annotation>";
    const applies = `${severity} alert ${name} ${state}, ${impact}. ${summary}${description} ${runbook}`;
    const known = byName.get(name);
    if (known) {
      known.conditions[0]!.message += `; ${applies}`;
      continue;
    }
    byName.set(name, {
      name,
      message: /\.$/.test(summary) ? summary : `${summary}.`,
      url: a.annotations?.runbook_url ?? NO_RUNBOOK,
      matchingRules: [{ type: "Always" }],
      conditions: [{ type: "Applies", status: "True", reason: `Alert:${state}`, message: applies, lastTransitionTime: activeAt }],
    });
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** `newRecommendedStatus`: False over Unknown over True. */
const worse = (now: string, want: string) =>
  now === "False" || want === "False" ? "False" : now === "Unknown" || want === "Unknown" ? "Unknown" : "True";

/** `newRecommendedReason`, as written. */
function mergeReason(now: string, want: string): string {
  if (
    now === "NotExposedToRisks" ||
    (now === "AllExposedRisksAccepted" && want !== "NotExposedToRisks") ||
    (now === "EvaluationFailed" && want === "ExposedToRisks") ||
    now === want
  )
    return want;
  if (
    want === "NotExposedToRisks" ||
    (now === "EvaluationFailed" && want === "AllExposedRisksAccepted") ||
    (now === "ExposedToRisks" && (want === "AllExposedRisksAccepted" || want === "EvaluationFailed"))
  )
    return now;
  return "MultipleReasons";
}

/**
 * `evaluateConditionalUpdate`: an update's Recommended condition from its risks' Applies conditions and
 * the accepted risk names. A risk without Applies is skipped here (the CVO reports an internal error).
 */
export function recommendedFor(
  risks: readonly Pick<Risk, "name" | "message" | "url" | "conditions">[],
  accepted: ReadonlySet<string>,
  now: string,
) {
  let status = "True";
  let reason = "NotExposedToRisks";
  const messages: string[] = [];
  for (const r of risks) {
    const applies = (r.conditions ?? []).find((c) => c.type === "Applies");
    if (!applies || applies.status === "False") continue;
    if (applies.status === "Unknown") {
      status = worse(status, "Unknown");
      reason = mergeReason(reason, "EvaluationFailed");
      messages.push(applies.message);
    } else if (accepted.has(r.name)) {
      status = worse(status, "True");
      reason = mergeReason(reason, "AllExposedRisksAccepted");
    } else {
      status = "False";
      reason = mergeReason(reason, REASON.test(r.name) ? r.name : "ExposedToRisks");
      messages.push(`${r.message} ${r.url}`);
    }
  }
  return {
    type: "Recommended",
    status,
    reason,
    message: messages.length
      ? messages.join("\n\n")
      : reason === "AllExposedRisksAccepted"
        ? "The update is recommended, because either risk does not apply to this cluster or it is accepted by cluster admins."
        : "The update is recommended, because none of the conditional update risks apply to this cluster.",
    lastTransitionTime: now,
  };
}

type Update = { version: string; image?: string };
type Conditional = { release: Update; risks: Risk[]; conditions?: unknown[]; riskNames?: string[] };

/**
 * ClusterVersion with the alert risks merged into its updates (`risk.Merge`) and each conditional
 * update's Recommended as evaluateConditionalUpdate gives it for these risks (other risks' own
 * Applies conditions kept); availableUpdates keeps what is recommended.
 */
export function withAlertRisks(cv: KubeObject, alerts: readonly SimAlert[], now: string): KubeObject {
  const risks = alertRisks(alerts, "2026-01-01T00:00:00Z");
  if (risks.length === 0) return cv;
  const next = structuredClone(cv) as KubeObject & {
    spec?: { desiredUpdate?: { acceptRisks?: { name: string }[] } };
    status: { availableUpdates?: Update[] | null; conditionalUpdates?: Conditional[]; conditionalUpdateRisks?: Risk[] };
  };
  const accepted = new Set((next.spec?.desiredUpdate?.acceptRisks ?? []).map((r) => r.name));
  const conditional: Conditional[] = [
    ...(next.status.conditionalUpdates ?? []).map((u) => ({
      ...u,
      risks: [...u.risks, ...risks].sort((a, b) => (a.name < b.name ? -1 : 1)),
    })),
    ...(next.status.availableUpdates ?? []).map((release) => ({ release, risks })),
  ];
  const recommendedOf = (u: Conditional) => recommendedFor(u.risks, accepted, now);
  const evaluated = conditional
    .map((u) => ({ ...u, riskNames: u.risks.map((r) => r.name), conditions: [recommendedOf(u)] }))
    .sort((a, b) => (a.release.version < b.release.version ? 1 : -1));
  next.status.conditionalUpdates = evaluated;
  next.status.availableUpdates = evaluated.filter((u) => u.conditions[0]!.status === "True").map((u) => u.release);
  next.status.conditionalUpdateRisks = [
    ...new Map(next.status.conditionalUpdates.flatMap((u) => u.risks).map((r) => [r.name, r])).values(),
  ].sort((a, b) => (a.name < b.name ? -1 : 1));
  return next;
}
