import { describe, expect, it } from "vitest";
import { nodePinProgress } from "../bundleProgress";
import { GiB, hex, manifest } from "../testing/bundles";
import { healthyCluster, node, pool } from "../testing/snapshots";
import { preloadFailure, storedPrecheckFailure } from "./bundleChecks";

const digest = hex("d");

describe("the prechecks a stored snapshot answers", () => {
  it("passes a healthy cluster with room for the images", () => {
    expect(storedPrecheckFailure(healthyCluster(), manifest, digest)).toBeNull();
  });

  it("fails a degraded pool, in the precheck's words with what to do", () => {
    const s = healthyCluster({
      pools: [pool("master"), pool("worker", { degraded: true, degradedMessage: "Node w0 is reporting: disk full" })],
    });
    expect(storedPrecheckFailure(s, manifest, digest)).toBe(
      "bundle precheck: Pool worker is degraded. The worker pool reports Degraded: Node w0 is reporting: disk full. Its nodes would not take new pinned images reliably. " +
        "Ask an admin to fix the degraded pool (oc get mcp shows which node) before applying the bundle.",
    );
  });

  it("fails a node without the allocatable storage the MCO requires: twice the images plus 16 GiB", () => {
    const small = { ...node("w0", "worker"), ephemeralBytes: 40 * GiB };
    const s = healthyCluster({ nodes: [node("m0", "master"), small] });
    expect(storedPrecheckFailure(s, manifest, digest)).toMatch(
      /^bundle precheck: Not enough disk on 1 node of worker\. .*w0 has 40\.0 GiB and needs 46\.0 GiB/,
    );
  });

  it("leaves to the live read what the snapshot does not hold: the pools' selectors", () => {
    // A stored pool has no machineConfigSelector; the live precheck decides whether a set can reach it.
    expect(storedPrecheckFailure(healthyCluster({ pools: [pool("master"), pool("worker"), pool("infra")] }), manifest, digest)).toBeNull();
  });
});

describe("a failed pre-load, in the MCO's words", () => {
  const set = { name: "fleetskew-set-worker", generation: 1 };
  const failed = (name: string, error: string) =>
    nodePinProgress(
      { ...node(name, "worker", [{ set: set.name, desiredGeneration: 1, lastFailedGeneration: 1, error }]), pinnedDegraded: true },
      set,
      15 * GiB,
    );

  it("names the first failed node, the MCO's error, where it is reported and what to do", () => {
    const nodes = [
      nodePinProgress(node("w0", "worker", [{ set: set.name, desiredGeneration: 1, currentGeneration: 1 }]), set, 15 * GiB),
      failed("w1", "storage available is less than minimum required"),
      failed("w2", "manifest unknown"),
    ];
    expect(preloadFailure(nodes)).toMatch(
      /^pre-load failed on node w1 of pool worker: not enough disk; the MCO reports "storage available is less than minimum required" \(MachineConfigNode w1, PinnedImageSetsDegraded=True\) \(1 more node failed too\)\. The node needs up to 46\.0 GiB/,
    );
  });

  it("is nothing while the MCO only retries after its prefetch timeout", () => {
    expect(preloadFailure([failed("w1", "requeue: prefetching images incomplete after timeout: 5m0s")])).toBeNull();
  });
});
