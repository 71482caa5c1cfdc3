/**
 * The cluster's Thanos querier (openshift/cluster-monitoring-operator assets/thanos-querier: Service
 * thanos-querier, port `web` 9091 behind a kube-rbac-proxy; Route thanos-querier, path `/api`;
 * docs/openshift.md §27.3), reached three ways:
 * - through its Route, at `thanos-querier-openshift-monitoring.apps.<cluster>.<ingress domain>`, served
 *   by the simulator's router (./http.ts) with a certificate of the cluster's ingress CA;
 * - through a hub's cluster-proxy service path (./hub/proxy.ts), which passes the token on;
 * - through the API server's own service proxy, which drops the caller's token, so the querier's
 *   kube-rbac-proxy answers 401 as it does on a real cluster.
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
   * How the querier answers: "ok" (default); "forbidden": its kube-rbac-proxy refuses the token's user
   * (no `get prometheuses/api`, 403); "absent": cluster monitoring has no querier, Route or Service
   * (404); "unavailable": no ready endpoints (the router's 503 page, the API server's 503).
   */
  querier?: "ok" | "forbidden" | "absent" | "unavailable";
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

export type ProxyAnswer = { status: number; contentType: string; body: string };

/** The querier's Route, as cluster-monitoring-operator's assets/thanos-querier/route.yaml has it, admitted by the default router. */
export const QUERIER_ROUTE = { namespace: "openshift-monitoring", name: "thanos-querier" } as const;
export const querierRouteHost = (cluster: string, domain: string) => `thanos-querier-openshift-monitoring.apps.${cluster}.${domain}`;

export function querierRoute(cluster: string, domain: string) {
  const host = querierRouteHost(cluster, domain);
  return {
    apiVersion: "route.openshift.io/v1",
    kind: "Route",
    metadata: { name: QUERIER_ROUTE.name, namespace: QUERIER_ROUTE.namespace, labels: { "app.kubernetes.io/name": "thanos-query" } },
    spec: {
      host,
      path: "/api",
      port: { targetPort: "web" },
      tls: { termination: "Reencrypt", insecureEdgeTerminationPolicy: "Redirect" },
      to: { kind: "Service", name: "thanos-querier", weight: 100 },
      wildcardPolicy: "None",
    },
    status: {
      ingress: [
        {
          host,
          routerName: "default",
          routerCanonicalHostname: `router-default.apps.${cluster}.${domain}`,
          wildcardPolicy: "None",
          conditions: [{ type: "Admitted", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }],
        },
      ],
    },
  };
}

/** openshift-config-managed/default-ingress-cert: the CA of the default ingress certificate (cluster-ingress-operator certificate-publisher). */
export const ingressCaConfigMap = (caPem: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "default-ingress-cert", namespace: "openshift-config-managed" },
  data: { "ca-bundle.crt": caPem },
});

const plainText = (status: number, message: string): ProxyAnswer => ({
  status,
  contentType: "text/plain; charset=utf-8",
  body: `${message}\n`,
});

/** The OpenShift router's page for a host or path no ready endpoint serves. */
export const routerUnavailable = (): ProxyAnswer => ({
  status: 503,
  contentType: "text/html",
  body: "<html><head><title>Application is not available</title></head><body><h1>Application is not available</h1><p>The application is currently not serving requests at this endpoint. It may not have been started or is still starting.</p></body></html>",
});

/**
 * What the querier's kube-rbac-proxy and the querier answer `path` for a caller: `user` is who the
 * token is (null: no token it knows, 401 as kube-rbac-proxy's http.Error writes it); `allowed` is the
 * SubjectAccessReview of `get prometheuses/api k8s` in openshift-monitoring.
 */
export function querierAnswer(monitoring: MonitoringSpec = {}, path: string, user: string | null, allowed: boolean): ProxyAnswer {
  if (monitoring.querier === "absent" || monitoring.querier === "unavailable") return routerUnavailable();
  if (!user) return plainText(401, "Unauthorized");
  if (!allowed || monitoring.querier === "forbidden")
    return plainText(403, `Forbidden (user=${user}, verb=get, resource=prometheuses, subresource=api)`);
  if (path.replace(/^\//, "") !== "api/v1/alerts") return plainText(404, "404 page not found");
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

/**
 * The answer to a request of the API server's own service proxy for `segments` (URL-decoded), or null
 * when the path is not a service proxy this simulator serves. Permission (`get services/proxy`) is
 * checked by the caller. The API server drops the caller's Authorization header once it has
 * authenticated it (kubernetes staging/src/k8s.io/apiserver/pkg/endpoints/filters/authentication.go),
 * so the querier sees no token.
 */
export function serviceProxy(monitoring: MonitoringSpec = {}, segments: string[]): ProxyAnswer | null {
  if (segments.length < 7 || PROXY_PREFIX.some((s, i) => segments[i] !== s) || segments[6] !== "proxy") return null;
  const service = segments[5]!;
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
  if (!service.startsWith("https:"))
    // The querier speaks only TLS: plain http to it fails as the API server's proxy reports it.
    return status(503, "ServiceUnavailable", "error trying to reach service: EOF");
  if (monitoring.querier === "unavailable") return status(503, "ServiceUnavailable", `no endpoints available for service "thanos-querier"`);
  return querierAnswer(monitoring, segments.slice(7).join("/"), null, false);
}
