import { describe, expect, it } from "vitest";
import { RELEASE_LABEL } from "../bundleManifest";
import { healthyCluster, node, pool } from "../testing/snapshots";
import { run } from "./testing";

describe("pools (docs/openshift.md §21.1)", () => {
  const degradedWorker = pool("worker", {
    degraded: true,
    degradedMachineCount: 1,
    degradedMessage: 'Node w1 is reporting: "unexpected on-disk state"',
  });
  it.each([
    {
      rule: "a degraded pool fails, with its message",
      id: "pools-degraded",
      pools: [pool("master"), degradedWorker],
      status: "fail",
      detail: /unexpected on-disk state/,
    },
    {
      rule: "an interrupted build fails",
      id: "pools-degraded",
      pools: [pool("master"), pool("infra", { buildInterrupted: true })],
      status: "fail",
      detail: /BuildInterrupted/,
    },
    {
      rule: "healthy pools pass",
      id: "pools-degraded",
      pools: [pool("master"), pool("worker")],
      status: "pass",
      detail: /None of the 2 pools/,
    },
    {
      rule: "a paused worker pool warns: its nodes do not update",
      id: "pools-paused",
      pools: [pool("master"), pool("worker", { paused: true })],
      status: "warn",
      detail: /worker/,
    },
    {
      rule: "a paused master pool fails: the MCO waits for it, the update stalls",
      id: "pools-paused",
      pools: [pool("master", { paused: true }), pool("worker", { paused: true })],
      status: "fail",
      detail: /master pool is paused, and so is worker/,
    },
    {
      rule: "an updating pool warns",
      id: "pools-updating",
      pools: [pool("master"), pool("worker", { updating: true, updatedMachineCount: 1 })],
      status: "warn",
      detail: /1 of 3 nodes/,
    },
    {
      rule: "a paused pool that reports Updating is left to the paused check",
      id: "pools-updating",
      pools: [pool("master"), pool("worker", { updating: true, paused: true })],
      status: "pass",
      detail: /up to date/,
    },
  ])("$rule", ({ id, pools, status, detail }) => {
    const c = run(healthyCluster({ pools }), "4.20", id);
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });

  it("pool checks apply to z-stream updates too", () => {
    expect(run(healthyCluster({ pools: [pool("master"), degradedWorker] }), "4.19.11", "pools-degraded").status).toBe("fail");
  });

  it("unreadable pools are unknown; a partial read does not pass", () => {
    const none = healthyCluster({ pools: [], problems: [{ part: "MachineConfigPools", kind: "error", message: "timeout" }] });
    expect(run(none, "4.20", "pools-degraded")).toMatchObject({ status: "unknown", detail: expect.stringContaining("timeout") });
    const partial = healthyCluster({ problems: [{ part: "MachineConfigPools", kind: "error", message: "infra skipped: bad status" }] });
    expect(run(partial, "4.20", "pools-degraded").status).toBe("unknown");
    expect(run(partial, "4.20", "pools-paused").status).toBe("unknown");
  });

  it("cites the pool's field", () => {
    expect(run(healthyCluster({ pools: [pool("master", { paused: true })] }), "4.20", "pools-paused").evidence).toEqual([
      { kind: "MachineConfigPool", name: "master", field: "spec.paused" },
    ]);
  });
});

describe("image-mode-builds (docs/openshift.md §21.4)", () => {
  it.each([
    { rule: "no image-mode pool passes", imageMode: [], status: "pass" },
    {
      rule: "a succeeded build passes",
      imageMode: [{ pool: "infra", build: "infra-1", buildState: "succeeded" as const }],
      status: "pass",
    },
    { rule: "a failed build fails", imageMode: [{ pool: "infra", build: "infra-1", buildState: "failed" as const }], status: "fail" },
    {
      rule: "an interrupted build fails",
      imageMode: [{ pool: "infra", build: "infra-1", buildState: "interrupted" as const }],
      status: "fail",
    },
    { rule: "a running build warns", imageMode: [{ pool: "infra", build: "infra-1", buildState: "building" as const }], status: "warn" },
  ])("$rule", ({ imageMode, status }) => {
    expect(run(healthyCluster({ imageMode }), "4.20", "image-mode-builds").status).toBe(status);
  });

  it("MachineOSConfigs unreadable is unknown", () => {
    const s = healthyCluster({ problems: [{ part: "MachineOSConfigs", kind: "error", message: "forbidden" }] });
    expect(run(s, "4.20", "image-mode-builds").status).toBe("unknown");
  });
});

describe("pinned-images: MachineConfigNode status.pinnedImageSets (docs/openshift.md §21.2, §21.3)", () => {
  const failedWorker = node("ip-10-0-77-201.ec2.internal", "worker", [
    {
      set: "worker-prefetch-app-images",
      currentGeneration: 1,
      desiredGeneration: 2,
      lastFailedGeneration: 2,
      error: "storage available is less than minimum required",
    },
  ]);
  const doneMaster = node("ip-10-0-12-34.ec2.internal", "master", [
    { set: "master-ocp-4.19.11-prefetch", currentGeneration: 1, desiredGeneration: 1 },
  ]);
  const pulling = node("w2", "worker", [{ set: "worker-prefetch-app-images", currentGeneration: 1, desiredGeneration: 2 }]);
  const retrying = node("w3", "worker", [
    { set: "s", currentGeneration: 1, desiredGeneration: 3, lastFailedGeneration: 2, error: "old failure" },
  ]);
  it.each([
    {
      rule: "a failed generation (lastFailed ≥ desired, with error) of a set outside any bundle for the target warns with the node's error text",
      nodes: [doneMaster, failedWorker, pulling],
      status: "warn",
      detail: /ip-10-0-77-201\.ec2\.internal, set worker-prefetch-app-images: "storage available is less than minimum required"/,
    },
    {
      rule: "current < desired warns: still pulling",
      nodes: [doneMaster, pulling],
      status: "warn",
      detail: /w2, set worker-prefetch-app-images \(generation 1 of 2\)/,
    },
    { rule: "an older failure being retried counts as pulling", nodes: [retrying], status: "warn", detail: /w3/ },
    { rule: "all complete passes", nodes: [doneMaster], status: "pass", detail: /Every node/ },
    { rule: "nothing pinned passes", nodes: [node("a", "worker")], status: "pass", detail: /No pinned image sets/ },
  ])("$rule", ({ nodes, status, detail }) => {
    const c = run(healthyCluster({ nodes }), "4.19.11", "pinned-images");
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });

  it("a failed set of the bundle for the target release fails; the same failure for another release only warns", () => {
    const bundleSet = { name: "worker-prefetch-app-images", images: 3, generation: 2, labels: { [RELEASE_LABEL]: "4.19.11" } };
    const cluster = healthyCluster({ nodes: [doneMaster, failedWorker], pinnedImageSets: [bundleSet] });
    const forTarget = run(cluster, "4.19.11", "pinned-images");
    expect(forTarget.status).toBe("fail");
    expect(forTarget.detail).toMatch(/Pre-loading the bundle for 4\.19\.11 failed on 1 node/);
    expect(run(cluster, "4.20", "pinned-images").status).toBe("warn");
    // A minor target counts bundles for any release of that minor.
    expect(run(cluster, "4.19", "pinned-images").status).toBe("fail");
    const stillPulling = healthyCluster({ nodes: [pulling], pinnedImageSets: [bundleSet] });
    expect(run(stillPulling, "4.19.11", "pinned-images")).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/still being pulled/),
    });
  });

  it("cites the MachineConfigNode entry", () => {
    expect(run(healthyCluster({ nodes: [failedWorker] }), "4.20", "pinned-images").evidence).toEqual([
      { kind: "MachineConfigNode", name: "ip-10-0-77-201.ec2.internal", field: "status.pinnedImageSets[worker-prefetch-app-images]" },
    ]);
  });

  it("MachineConfigNodes not served (before 4.19) passes; a read error is unknown", () => {
    const notServed = healthyCluster({
      problems: [{ part: "MachineConfigNodes", kind: "not-available", message: "not served by this version" }],
    });
    expect(run(notServed, "4.20", "pinned-images").status).toBe("pass");
    const error = healthyCluster({ problems: [{ part: "MachineConfigNodes", kind: "error", message: "timeout" }] });
    expect(run(error, "4.20", "pinned-images").status).toBe("unknown");
  });
});
