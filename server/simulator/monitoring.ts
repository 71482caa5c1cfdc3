/**
 * The cluster's Thanos querier as the API server's service proxy reaches it:
 * `GET /api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:web/proxy/api/v1/alerts`
 * answers the Prometheus alerts API (openshift/cluster-monitoring-operator
 * assets/thanos-querier/service.yaml: Service thanos-querier, port `web` 9091; docs/openshift.md §27.3).
 * What the querier answers is OpenShift's business, told here from the cluster's spec, not from
 * anything Fleetskew predicts.
 */
export type SimAlert = {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  state?: "firing" | "pending";
};

export type MonitoringSpec = {
  /** The alerts the querier returns: a preset's name or a list; default "quiet". */
  alerts?: AlertPreset | SimAlert[];
  /**
   * How the querier behind the proxy answers: "ok" (default); "refuses-anonymous" answers 401 as the
   * querier's kube-rbac-proxy answers a request without a token, which is what a real API server's
   * service proxy sends it (it drops the caller's Authorization header); "absent": no such Service (404);
   * "unavailable": the Service has no ready endpoints (503).
   */
  querier?: "ok" | "refuses-anonymous" | "absent" | "unavailable";
};

const alert = (labels: Record<string, string>, annotations: Record<string, string>, state: SimAlert["state"] = "firing"): SimAlert => ({
  labels,
  annotations,
  state,
});

/** What every healthy cluster fires: Watchdog always, and the receivers warning of a fresh install. */
const QUIET: SimAlert[] = [
  alert(
    { alertname: "Watchdog", namespace: "openshift-monitoring", severity: "none", prometheus: "openshift-monitoring/k8s" },
    { summary: "An alert that should always be firing to certify that Alertmanager is working properly." },
  ),
  alert(
    { alertname: "AlertmanagerReceiversNotConfigured", namespace: "openshift-monitoring", severity: "warning" },
    { summary: "Receivers (notification integrations) are not configured on Alertmanager" },
  ),
];

export const ALERT_PRESETS = {
  quiet: QUIET,
  /** A cluster in trouble before its update: a critical alert, and a PodDisruptionBudget that allows no disruption. */
  "critical-and-pdb": [
    ...QUIET,
    alert(
      { alertname: "KubeAPIErrorBudgetBurn", severity: "critical", namespace: "openshift-kube-apiserver", long: "1h", short: "5m" },
      {
        summary: "The API server is burning too much error budget.",
        description: "The API server is burning too much error budget.",
        runbook_url: "https://github.com/openshift/runbooks/blob/master/alerts/cluster-kube-apiserver-operator/KubeAPIErrorBudgetBurn.md",
      },
    ),
    alert(
      { alertname: "PodDisruptionBudgetAtLimit", severity: "warning", namespace: "payments", poddisruptionbudget: "payments-api" },
      {
        summary: "The pod disruption budget is preventing further disruption to pods.",
        description:
          "The pod disruption budget is at the minimum disruptions allowed level. The number of current healthy pods is equal to the desired healthy pods.",
      },
    ),
    // Pending: oc (and so Fleetskew) does not count it.
    alert(
      { alertname: "KubeNodeNotReady", severity: "warning", namespace: "openshift-monitoring", node: "worker-2" },
      { summary: "Node is not ready." },
      "pending",
    ),
  ],
} satisfies Record<string, SimAlert[]>;
export type AlertPreset = keyof typeof ALERT_PRESETS;

const PROXY_PREFIX = ["api", "v1", "namespaces", "openshift-monitoring", "services"];
const QUERIER = "https:thanos-querier:web";

export type ProxyAnswer = { status: number; contentType: string; body: string };

/**
 * The answer to a service-proxy request of `segments` (already URL-decoded), or null when the path is
 * not a service proxy this simulator serves. Permission (`get services/proxy`) is checked by the caller.
 */
export function serviceProxy(monitoring: MonitoringSpec = {}, segments: string[]): ProxyAnswer | null {
  if (segments.length < 7 || PROXY_PREFIX.some((s, i) => segments[i] !== s) || segments[6] !== "proxy") return null;
  const service = segments[5]!;
  const path = segments.slice(7).join("/");
  const status = (code: number, reason: string, message: string): ProxyAnswer => ({
    status: code,
    contentType: "application/json",
    body: JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message,
      reason,
      code,
      details: { name: "thanos-querier", kind: "services" },
    }),
  });
  if (!/^(https:)?thanos-querier(:web|:9091)?$/.test(service) || monitoring.querier === "absent")
    return status(404, "NotFound", `services "thanos-querier" not found`);
  if (service !== QUERIER && !service.startsWith("https:"))
    // The querier speaks only TLS: plain http to it fails as the API server's proxy reports it.
    return status(503, "ServiceUnavailable", "error trying to reach service: EOF");
  if (monitoring.querier === "unavailable") return status(503, "ServiceUnavailable", `no endpoints available for service "thanos-querier"`);
  if (monitoring.querier === "refuses-anonymous") return { status: 401, contentType: "text/plain; charset=utf-8", body: "Unauthorized\n" };
  if (path !== "api/v1/alerts") return { status: 404, contentType: "text/plain; charset=utf-8", body: "404 page not found\n" };
  const chosen = monitoring.alerts ?? "quiet";
  const alerts = (typeof chosen === "string" ? ALERT_PRESETS[chosen] : chosen).map((a) => ({
    labels: a.labels,
    annotations: a.annotations ?? {},
    state: a.state ?? "firing",
    activeAt: "2026-01-01T00:00:00Z",
    value: "1e+00",
    partialResponseStrategy: "WARN",
  }));
  return { status: 200, contentType: "application/json", body: JSON.stringify({ status: "success", data: { alerts } }) };
}
