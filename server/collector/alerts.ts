import { alertGroupOf, MAX_ALERT_LABEL, MAX_ALERT_TEXT, MAX_ALERTS_PER_GROUP, type AlertGroup } from "../domain/readiness/alerts";
import type { AlertFacts, FiringAlert, ReadProblem } from "../domain/snapshot";
import type { ClusterObjects } from "../kube/readers";
import { obj, str } from "./fields";

const cut = (text: string | null, max: number) => (text && text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * The firing alerts of the groups `oc adm upgrade recommend` checks (server/domain/readiness/alerts.ts),
 * at most MAX_ALERTS_PER_GROUP of each, strings truncated; the others (Watchdog, pending alerts, alerts
 * of no group) are not kept, so the snapshot changes only when what the checks see changes. Null, with
 * a problem "Alerts", when the querier could not be read.
 */
export function alertFacts(read: ClusterObjects, problems: ReadProblem[]): AlertFacts | null {
  const r = read.alerts;
  if (!r) return null;
  if (r.status !== "ok") {
    problems.push({ part: "Alerts", kind: "not-available", message: r.reason });
    return null;
  }
  const kept = new Map<AlertGroup, FiringAlert[]>();
  let relevant = 0;
  for (const raw of r.value.data.alerts) {
    const labels = obj(raw.labels);
    const annotations = obj(raw.annotations);
    const alert: FiringAlert = {
      name: cut(str(labels.alertname), MAX_ALERT_LABEL) ?? "",
      severity: cut(str(labels.severity), MAX_ALERT_LABEL),
      namespace: cut(str(labels.namespace), MAX_ALERT_LABEL),
      podDisruptionBudget: cut(str(labels.poddisruptionbudget), MAX_ALERT_LABEL),
      updatePrecheck: labels.openShiftUpdatePrecheck === "true",
      summary: cut(str(annotations.summary), MAX_ALERT_TEXT),
      // oc joins description and message when both are set; one of them is enough to say what is wrong.
      description: cut(str(annotations.description) ?? str(annotations.message), MAX_ALERT_TEXT),
    };
    const group = alertGroupOf({ ...alert, state: str(raw.state) });
    if (!group) continue;
    relevant++;
    const list = kept.get(group) ?? [];
    if (list.length < MAX_ALERTS_PER_GROUP) list.push(alert);
    kept.set(group, list);
  }
  // A stable order, so that the same alerts make the same snapshot.
  const firing = [...kept.values()]
    .flat()
    .sort(
      (a, b) =>
        a.name.localeCompare(b.name) ||
        (a.namespace ?? "").localeCompare(b.namespace ?? "") ||
        (a.podDisruptionBudget ?? "").localeCompare(b.podDisruptionBudget ?? ""),
    );
  return { firing, relevant };
}
