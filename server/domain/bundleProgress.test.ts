import { describe, expect, it } from "vitest";
import { explainPinFailure, nodePinProgress, summarizeProgress } from "./bundleProgress";
import { GiB } from "./testing/bundles";
import { node } from "./testing/snapshots";

describe("a node's pre-load in plain words (MachineConfigNode, reference §5.2)", () => {
  const set = { name: "s", generation: 2 };
  it.each([
    ["current generation reached: done", node("n", "worker", [{ set: "s", currentGeneration: 2, desiredGeneration: 2 }]), "done"],
    [
      "progressing: pulling",
      { ...node("n", "worker", [{ set: "s", currentGeneration: 1, desiredGeneration: 2 }]), pinnedProgressing: true },
      "pulling",
    ],
    ["no entry yet: waiting", node("n", "worker"), "waiting"],
    [
      "failed for this generation while degraded: failed",
      {
        ...node("n", "worker", [
          { set: "s", currentGeneration: 1, desiredGeneration: 2, lastFailedGeneration: 2, error: "no space left on device" },
        ]),
        pinnedDegraded: true,
      },
      "failed",
    ],
    [
      "an old failure, being retried: pulling",
      {
        ...node("n", "worker", [{ set: "s", currentGeneration: 1, desiredGeneration: 2, lastFailedGeneration: 2, error: "x" }]),
        pinnedProgressing: true,
      },
      "pulling",
    ],
  ])("%s", (_rule, n, state) => {
    expect(nodePinProgress(n, set, GiB).state).toBe(state);
  });

  it.each([
    ["storage available is less than minimum required", "failed: not enough disk"],
    ["write /var/lib/containers: no space left on device", "failed: disk filled up while pulling"],
    ["reading manifest sha256:abc in mirror.example.com/ocp: manifest unknown", "failed: image not in the mirror"],
    ["unauthorized: authentication required", "failed: the registry refused the node"],
    ["dial tcp 10.0.0.5:5000: i/o timeout", "failed: registry not reachable"],
    ["something else entirely", "failed"],
  ])("explains %s", (error, label) => {
    const explained = explainPinFailure(error, 10 * GiB, 20 * GiB);
    expect(explained.label).toBe(label);
    expect(explained.remedy.length).toBeGreaterThan(20);
  });

  it("summarizes: all done only when every node is done", () => {
    const done = nodePinProgress(node("a", "worker", [{ set: "s", currentGeneration: 2, desiredGeneration: 2 }]), set, 1);
    const waiting = nodePinProgress(node("b", "worker"), set, 1);
    expect(summarizeProgress([done, waiting])).toEqual({ total: 2, done: 1, pulling: 0, waiting: 1, failed: 0, allDone: false });
    expect(summarizeProgress([done]).allDone).toBe(true);
    expect(summarizeProgress([]).allDone).toBe(false);
  });
});
