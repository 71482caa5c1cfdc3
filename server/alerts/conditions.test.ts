import { describe, expect, it } from "vitest";
import type { ClusterAttention } from "../store/alerts";
import { evaluateFleetAlerts } from "./conditions";
import { bearerToken, sameSecret } from "./scrapeAccess";

const cluster = (over: Partial<ClusterAttention>): ClusterAttention => ({
  name: "edge-7",
  labels: { env: "edge" },
  hub: "hub-a",
  clusterSet: "edge",
  signals: null,
  failedSweeps: 0,
  contactStatus: "ok",
  contactError: null,
  lastContactAt: null,
  pendingAcknowledgements: 0,
  oldestPendingSeconds: 0,
  ...over,
});

describe("evaluateFleetAlerts: the rules' conditions on the store's figures", () => {
  it("raises what the rules would, with the rules' labels, most severe first", () => {
    const alerts = evaluateFleetAlerts({
      clusters: [
        cluster({
          signals: {
            skewBlocks: [
              {
                targetKind: "next-minor",
                target: "4.22",
                stage: "after-update",
                at: "4.22",
                source: "predicted",
                offered: false,
                message: "below",
              },
            ],
            upgradeable: { reason: "AdminAckRequired", message: "ack", from: "ClusterVersion" },
            pinnedFailures: [],
            pinnedFailureCount: 0,
          },
          failedSweeps: 2,
          pendingAcknowledgements: 1,
          oldestPendingSeconds: 3600,
        }),
        cluster({ name: "lost", failedSweeps: 3, contactStatus: "unreachable", contactError: "connect ECONNREFUSED" }),
      ],
      rollouts: [{ number: 7, kind: "upgrade", status: "paused", statusReason: "a canary failed", failedClusters: 1, sinceSeconds: 60 }],
      sweepLagSeconds: 601,
    });
    expect(alerts.map((a) => [a.alert, a.cluster])).toEqual([
      ["FleetskewClusterUnreachable", "lost"],
      ["FleetskewCollectorStale", null],
      ["FleetskewNextMinorBlockedByBootImageSkew", "edge-7"],
      ["FleetskewRolloutClustersFailed", null],
      ["FleetskewClusterNotUpgradeable", "edge-7"],
      ["FleetskewRolloutPaused", null],
    ]);
    expect(alerts[2]!.labels).toEqual({
      alertname: "FleetskewNextMinorBlockedByBootImageSkew",
      severity: "warning",
      cluster: "edge-7",
      hub: "hub-a",
      cluster_set: "edge",
      environment: "edge",
      target: "4.22",
      stage: "after-update",
      source: "predicted",
    });
    expect(alerts[2]!.description).toContain("The channel does not offer 4.22 yet.");
    // Two failed sweeps, an acknowledgement waiting an hour: below the rules' thresholds.
    expect(alerts.filter((a) => a.cluster === "edge-7").map((a) => a.alert)).not.toContain("FleetskewAcknowledgementWaiting");
  });
});

describe("the scrape token", () => {
  it("is read from a Bearer header only", () => {
    const req = (authorization?: string) => new Request("http://x/metrics", { headers: authorization ? { authorization } : {} });
    expect(bearerToken(req("Bearer abc"))).toBe("abc");
    expect(bearerToken(req("bearer abc "))).toBe("abc");
    expect(bearerToken(req("Basic abc"))).toBeNull();
    expect(bearerToken(req("Bearer a b"))).toBeNull();
    expect(bearerToken(req())).toBeNull();
  });

  it("is compared whatever the lengths", () => {
    expect(sameSecret("same-secret", "same-secret")).toBe(true);
    expect(sameSecret("same-secre", "same-secret")).toBe(false);
    expect(sameSecret("", "same-secret")).toBe(false);
  });
});
