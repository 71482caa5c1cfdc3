import { describe, expect, it } from "vitest";
import { clusterSignals, newestOffered } from "./alertSignals";
import { cond, healthyCluster, history, node, prodEast, prodEast422, prodEast422Acknowledged, versionFacts } from "./testing/snapshots";

describe("clusterSignals: what needs action about one cluster", () => {
  it("a healthy cluster has none (it costs no series)", () => {
    expect(clusterSignals(healthyCluster())).toBeNull();
    expect(clusterSignals(prodEast422Acknowledged())).toBeNull();
  });

  it("prod-east at 4.21 whose channel offers 4.22.3: the next minor update goes, then the 4.22 MCO blocks (predicted)", () => {
    const s = prodEast();
    s.version = versionFacts([...history("4.21.8", "4.20.12"), ...s.version!.history], {
      availableUpdates: ["4.22.3"],
      channel: "stable-4.22",
    });
    const signals = clusterSignals(s)!;
    expect(signals.skewBlocks).toEqual([
      expect.objectContaining({ targetKind: "next-minor", target: "4.22.3", stage: "after-update", source: "predicted", offered: true }),
    ]);
    expect(signals.skewBlocks[0]!.message).toContain("below the minimum required version 4.13.0");
    expect(signals.upgradeable).toBeNull();
  });

  it("the same cluster while its channel does not offer 4.22 yet: still predicted, offered false", () => {
    const s = prodEast();
    s.version = versionFacts([...history("4.21.8", "4.20.12"), ...s.version!.history], { availableUpdates: [], channel: "stable-4.21" });
    expect(clusterSignals(s)!.skewBlocks).toEqual([expect.objectContaining({ target: "4.22", offered: false, stage: "after-update" })]);
  });

  it("the channel's newest update, a later minor, blocked on the way there", () => {
    const s = prodEast();
    s.version = versionFacts([...history("4.20.12"), ...s.version!.history], { availableUpdates: ["4.21.8", "4.23.1"] });
    const blocks = clusterSignals(s)!.skewBlocks;
    expect(blocks.map((b) => [b.targetKind, b.target, b.stage, b.at])).toEqual([["newest", "4.23.1", "on-the-way", "4.22"]]);
  });

  it("prod-east-422 blocked by its own status: the next minor is blocked now, and Upgradeable=False is reported with its reason", () => {
    const signals = clusterSignals(prodEast422())!;
    expect(signals.skewBlocks[0]).toMatchObject({
      targetKind: "next-minor",
      target: "4.23",
      stage: "now",
      source: "cluster",
      offered: false,
    });
    expect(signals.upgradeable).toMatchObject({ reason: "ClusterBootImageSkewError", from: "ClusterVersion" });
  });

  it("a failed pre-load names the node and set; a prefetch timeout (a retry) does not count", () => {
    const s = healthyCluster({
      nodes: [
        node("w1", "worker", [
          { set: "bundle-4-19-11", desiredGeneration: 2, currentGeneration: 1, lastFailedGeneration: 2, error: "no space left on device" },
        ]),
        node("w2", "worker", [
          {
            set: "bundle-4-19-11",
            desiredGeneration: 2,
            currentGeneration: 1,
            lastFailedGeneration: 2,
            error: "requeue: prefetching images incomplete after timeout: 2m0s",
          },
        ]),
      ],
    });
    const signals = clusterSignals(s)!;
    expect(signals.pinnedFailures).toEqual([{ node: "w1", set: "bundle-4-19-11", error: "no space left on device" }]);
    expect(signals.pinnedFailureCount).toBe(1);
  });

  it("an admin gate: Upgradeable=False with the CVO's reason", () => {
    const s = healthyCluster();
    s.version!.conditions.push(cond("Upgradeable", "False", "AdminAckRequired", "Kubernetes 1.33 removes APIs"));
    expect(clusterSignals(s)!.upgradeable).toEqual({
      reason: "AdminAckRequired",
      message: "Kubernetes 1.33 removes APIs",
      from: "ClusterVersion",
    });
  });

  it("newestOffered takes the highest of available and conditional updates", () => {
    const s = healthyCluster({
      version: versionFacts(history("4.19.10"), {
        availableUpdates: ["4.19.11", "4.20.2"],
        conditionalUpdates: [{ version: "4.20.10", recommended: "False", risks: [] }],
      }),
    });
    expect(newestOffered(s)).toBe("4.20.10");
  });
});
