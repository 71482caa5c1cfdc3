import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evaluateReadiness } from "../domain/readiness";
import type { ClusterSnapshot } from "../domain/snapshot";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { startTestSimulator } from "../simulator/testing";
import { findClusterSummary } from "../store/clusters";
import { findClusterState } from "../store/history";
import { makeAllDue } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../testing/fleet";
import { parseConnectTo } from "../kube/connectTo";
import { Collector } from "./collector";

/**
 * Readiness as the update tooling judges it, end to end: the simulator's API server over HTTPS, the
 * collector's sweep through the real client, the stored snapshot, and the readiness of a target.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let fleet: Fleet;
let sim: SimulatorServer;

const CLUSTER = "prod-east-422";
const snapshotOf = async (name: string) => {
  const summary = await findClusterSummary(name);
  return (await findClusterState(summary!.id))!.snapshot!;
};
const sweep = async (connectTo = parseConnectTo(sim.connectTo)) => {
  await makeAllDue();
  return new Collector(testCollectorOptions("alerts", { client: { timeoutMs: 2_000, retries: 0, retryDelayMs: 10, connectTo } })).runOnce();
};
const check = (s: ClusterSnapshot, target: string, id: string) => evaluateReadiness(s, target).checks.find((c) => c.id === id)!;

/** The CVO's view of a 4.22 TechPreview cluster (gate ClusterUpdateAcceptRisks): a conditional update whose risks say whether they apply. */
function offerConditionalUpdate() {
  const c = fleet.get(CLUSTER)!;
  const info = c.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  const cv = c.store.get(info, undefined, "version") as { spec: Record<string, unknown>; status: Record<string, unknown> };
  const applies = (status: string, reason: string) => [
    { type: "Applies", status, reason, message: `${reason} for this cluster`, lastTransitionTime: "2026-11-01T00:00:00Z" },
  ];
  const risks = [
    {
      name: "SRIOVFailedToConfigureVF",
      message: "SR-IOV virtual functions may fail to configure after the update.",
      url: "https://issues.redhat.com/browse/OCPBUGS-40001",
      matchingRules: [{ type: "Always" }],
      conditions: applies("True", "MatchingRule"),
    },
    {
      name: "AzureDiskAttachSlow",
      message: "Disks attach slowly on Azure.",
      url: "https://issues.redhat.com/browse/OCPBUGS-40002",
      matchingRules: [{ type: "PromQL", promql: { promql: 'topk(1, cluster_infrastructure_provider{type="Azure"})' } }],
    },
  ];
  const updated = {
    ...cv,
    spec: { ...cv.spec, desiredUpdate: { ...(cv.spec.desiredUpdate as object), acceptRisks: [{ name: "OldRiskFromLastUpdate" }] } },
    status: {
      ...cv.status,
      // A release the CVO does not recommend is not among the available updates.
      availableUpdates: ((cv.status.availableUpdates ?? []) as { version: string }[]).filter((u) => u.version !== "4.22.5"),
      conditionalUpdates: [
        {
          release: { version: "4.22.5", image: "quay.io/openshift-release-dev/ocp-release@sha256:" + "5".repeat(64) },
          riskNames: ["SRIOVFailedToConfigureVF", "AzureDiskAttachSlow"],
          risks,
          conditions: [
            {
              type: "Recommended",
              status: "False",
              reason: "SRIOVFailedToConfigureVF",
              message: "…",
              lastTransitionTime: "2026-11-01T00:00:00Z",
            },
          ],
        },
      ],
      // The second risk's Applies is kept only in the shared list.
      conditionalUpdateRisks: [{ ...risks[1], conditions: applies("False", "NotMatchingRule") }],
    },
  };
  // The status subresource, as the CVO writes it; the spec through the object itself.
  const written = c.store.replace(info, undefined, "version", { ...cv, spec: updated.spec } as never).object;
  c.store.replace(info, undefined, "version", { ...written, status: updated.status } as never, "status");
}

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  // The gate's fields (acceptRisks, riskNames, conditionalUpdateRisks) are in the TechPreview CRD
  // only: a Default cluster's API would drop them (docs/openshift.md §26.2).
  fleet.get(CLUSTER)!.spec.featureSet = "TechPreviewNoUpgrade";
  await registerSimulatedClusters(sim, fleet.list());
  offerConditionalUpdate();
});
afterAll(() => sim.close());
beforeEach(() => {
  for (const c of fleet.list()) {
    fleet.setMonitoring(c.name, undefined);
    c.spec.forbidden = c.name === "legacy" ? [{ verb: "list", resource: "nodes", group: "" }] : undefined;
  }
});

describe("readiness as the update tooling judges it", () => {
  it("shows a conditional update's risks with whether each applies, and the alert checks of oc adm upgrade recommend", async () => {
    fleet.setMonitoring(CLUSTER, { alerts: "critical-and-pdb" });
    const routed: string[] = [];
    const observe = (req: { url?: string; headers: Record<string, unknown> }) =>
      String(req.headers.host).startsWith("thanos-querier-") && routed.push(`${String(req.headers.host)}${req.url}`);
    sim.server.on("request", observe);
    const results = await sweep().finally(() => sim.server.off("request", observe));
    // As oc reads them: the Route's admitted host, its certificate of the cluster's ingress CA, the alerts API.
    expect(routed).toContain(
      `thanos-querier-openshift-monitoring.apps.${CLUSTER}.s${new URL(sim.url).port}.sim.fleetskew.test/api/v1/alerts`,
    );
    expect(results.find((r) => r.cluster === CLUSTER)!.outcome).toBe("ok");
    const s = await snapshotOf(CLUSTER);
    // Only the alerts of oc's groups are kept (no Watchdog, no pending KubeNodeNotReady).
    expect(s.alerts!.firing.map((a) => a.name)).toEqual(["KubeAPIErrorBudgetBurn", "PodDisruptionBudgetAtLimit"]);
    expect(s.version!.acceptRisks).toEqual(["OldRiskFromLastUpdate"]);

    const risks = check(s, "4.22.5", "conditional-update-risks");
    expect(risks.status).toBe("warn");
    expect(risks.detail).toContain(
      "SRIOVFailedToConfigureVF [applies to this cluster]: SR-IOV virtual functions may fail to configure after the update. (https://issues.redhat.com/browse/OCPBUGS-40001)",
    );
    expect(risks.detail).toContain("AzureDiskAttachSlow [does not apply to this cluster]");
    expect(risks.detail).toContain("accepts the risks OldRiskFromLastUpdate");

    const critical = check(s, "4.22.5", "alerts-critical");
    expect(critical.status).toBe("warn");
    expect(critical.detail).toContain("critical alert KubeAPIErrorBudgetBurn (namespace openshift-kube-apiserver)");
    const pdb = check(s, "4.22.5", "alerts-pdb");
    expect(pdb.status).toBe("warn");
    expect(pdb.detail).toContain("PodDisruptionBudgetAtLimit (namespace payments, PodDisruptionBudget payments-api)");
    expect(check(s, "4.22.5", "alerts-node")).toMatchObject({ status: "pass", detail: "No Node alerts firing." });
    expect(check(s, "4.22.5", "alerts-image-pull").status).toBe("pass");

    // A cluster whose querier reports only Watchdog and the receivers warning passes every alert check.
    const quiet = await snapshotOf("prod-east");
    expect(quiet.alerts).toEqual({ firing: [], relevant: 0 });
    expect(check(quiet, "4.19.11", "alerts-critical")).toMatchObject({ status: "pass", detail: "No critical alerts firing." });
  });

  it("is unknown, never a pass, when the querier refuses Fleetskew's user (403), and the sweep still succeeds", async () => {
    fleet.get(CLUSTER)!.spec.forbidden = [{ verb: "get", resource: "prometheuses/api", group: "monitoring.coreos.com" }];
    const results = await sweep();
    expect(results.find((r) => r.cluster === CLUSTER)!.outcome).toBe("ok");
    expect((await findClusterSummary(CLUSTER))!.lastContactStatus).toBe("ok");
    const s = await snapshotOf(CLUSTER);
    expect(s.alerts).toBeNull();
    expect(s.problems.find((p) => p.part === "Alerts")!.message).toContain(
      "Forbidden (user=system:serviceaccount:fleetskew:fleetskew-admin, verb=get, resource=prometheuses, subresource=api)",
    );
    for (const id of ["alerts-critical", "alerts-pdb", "alerts-image-pull", "alerts-node", "alerts-update-precheck", "alerts-virt"]) {
      const c = check(s, "4.22.5", id);
      expect(c.status).toBe("unknown");
      expect(c.detail).toContain("no permission to read alerts from the Thanos querier");
    }
  });

  it("is unknown when the Route's host cannot be reached, or its certificate is not trusted, without marking the cluster unreachable", async () => {
    // No FLEETSKEW_CONNECT_TO: the simulated ingress names are in no DNS.
    await sweep([]);
    expect((await findClusterSummary(CLUSTER))!.lastContactStatus).toBe("ok");
    let s = await snapshotOf(CLUSTER);
    expect(check(s, "4.22.5", "alerts-critical").status).toBe("unknown");
    expect(s.problems.find((p) => p.part === "Alerts")!.message).toMatch(/cannot reach the cluster \((ENOTFOUND|EAI_AGAIN)\)/);

    // Without the published ingress CA (no permission to read it), the router's certificate is not trusted.
    fleet.get(CLUSTER)!.spec.forbidden = [{ verb: "get", resource: "configmaps", group: "" }];
    await sweep();
    s = await snapshotOf(CLUSTER);
    expect(s.problems.find((p) => p.part === "Alerts")!.message).toMatch(/certificate is not trusted/);
  });

  it("is unknown when the cluster has no querier Route (404) or the querier has no endpoints (the router's 503)", async () => {
    const reasons: string[] = [];
    for (const querier of ["absent", "unavailable"] as const) {
      fleet.setMonitoring(CLUSTER, { querier });
      await sweep();
      expect((await findClusterSummary(CLUSTER))!.lastContactStatus).toBe("ok");
      const s = await snapshotOf(CLUSTER);
      expect(check(s, "4.22.5", "alerts-pdb").status).toBe("unknown");
      reasons.push(s.problems.find((p) => p.part === "Alerts")!.message);
    }
    expect(reasons[0]).toContain("the cluster has no openshift-monitoring/thanos-querier Route");
    expect(reasons[1]).toContain("was answered 503: Application is not available");
  });
});
