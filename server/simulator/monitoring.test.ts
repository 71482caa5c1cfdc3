import { describe, expect, it } from "vitest";
import { querierAnswer, serviceProxy } from "./monitoring";

const path = "api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:web/proxy/api/v1/alerts".split("/");

describe("the simulated Thanos querier", () => {
  it("answers the API server's own service proxy 401: that proxy drops the caller's token, and kube-rbac-proxy sees none", () => {
    expect(serviceProxy({}, path)).toEqual({ status: 401, contentType: "text/plain; charset=utf-8", body: "Unauthorized\n" });
    expect(serviceProxy({ querier: "absent" }, path)!.status).toBe(404);
    expect(serviceProxy({}, "api/v1/namespaces/default/pods".split("/"))).toBeNull();
  });

  it("answers a known token with the alerts, an allowed-but-refused user with kube-rbac-proxy's 403, and a missing endpoint with the router's 503", () => {
    const ok = querierAnswer({ alerts: "critical-and-pdb" }, "/api/v1/alerts", "system:serviceaccount:fleetskew:fleetskew-reader", true);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).data.alerts.map((a: { labels: { alertname: string } }) => a.labels.alertname)).toContain(
      "PodDisruptionBudgetAtLimit",
    );
    expect(querierAnswer({}, "/api/v1/alerts", "u", false).body).toBe(
      "Forbidden (user=u, verb=get, resource=prometheuses, subresource=api)\n",
    );
    expect(querierAnswer({}, "/api/v1/alerts", null, true).status).toBe(401);
    expect(querierAnswer({ querier: "unavailable" }, "/api/v1/alerts", "u", true)).toMatchObject({ status: 503, contentType: "text/html" });
    expect(querierAnswer({}, "/api/v1/query", "u", true).status).toBe(404);
  });
});
