import { describe, expect, it } from "vitest";
import { explainPinFailure, isPrefetchRequeue, nodePinProgress, requeueTimeout, summarizeProgress } from "./bundleProgress";
import { GiB } from "./testing/bundles";
import { node } from "./testing/snapshots";

describe("a node's pre-load in plain words (MachineConfigNode, docs/openshift.md §21.2)", () => {
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
    expect(summarizeProgress([done, waiting])).toEqual({
      total: 2,
      done: 1,
      pulling: 0,
      waiting: 1,
      failed: 0,
      retrying: 0,
      allDone: false,
    });
    expect(summarizeProgress([done]).allDone).toBe(true);
    expect(summarizeProgress([]).allDone).toBe(false);
  });
});

/** The MCO's prefetch timeout (pkg/daemon/pinned_image_set.go PinnedImageSetManager.sync, errRequeueAfterTimeout). */
describe("PinnedImageSetManager.sync: a prefetch past the timeout is requeued, not failed", () => {
  const set = { name: "s", generation: 1 };
  const REQUEUE = "requeue: prefetching images incomplete after timeout: 5m0s";
  const pending = (over: Partial<ReturnType<typeof node>>, error: string | null = null) => ({
    ...node("n", "worker", [{ set: "s", currentGeneration: 0, desiredGeneration: 1, lastFailedGeneration: error ? 1 : null, error }]),
    ...over,
  });

  it("the requeue message is read as still pulling, with the retry explained (never 'registry not reachable')", () => {
    const p = nodePinProgress(pending({ pinnedDegraded: true, pinnedProgressing: true }, REQUEUE), set, 40 * GiB);
    expect(p).toMatchObject({ state: "pulling", retrying: true, label: "still pulling: the MCO retries", error: REQUEUE });
    expect(p.remedy).toMatch(/^Nothing to do\. The MCO gives each prefetch attempt 5 minutes; .* keeping the images already pulled\./);
    expect(p.label).not.toMatch(/registry not reachable/);
    expect(summarizeProgress([p])).toMatchObject({ pulling: 1, retrying: 1, failed: 0 });
  });

  it("before 4.22 the timeout was two minutes (cmd/machine-config-daemon/start.go)", () => {
    expect(requeueTimeout("requeue: prefetching images incomplete after timeout: 2m0s")).toBe("2 minutes");
    expect(requeueTimeout(REQUEUE)).toBe("5 minutes");
    expect(requeueTimeout("requeue: prefetching images incomplete after timeout: 30s")).toBe("30 seconds");
    expect(isPrefetchRequeue(REQUEUE)).toBe(true);
    expect(isPrefetchRequeue("failed to pull image: context deadline exceeded")).toBe(false);
  });

  it("the next attempt drops the set's error but leaves PinnedImageSetsDegraded: still pulling, retrying", () => {
    // updateStatusProgressing applies the set without lastFailedGeneration; the Degraded condition is reset only on success.
    const p = nodePinProgress(pending({ pinnedDegraded: true, pinnedProgressing: true }), set, 40 * GiB);
    expect(p).toMatchObject({ state: "pulling", retrying: true });
    // Without the message, the timeout is the one of the cluster's release (cmd/machine-config-daemon/start.go).
    expect(nodePinProgress(pending({ pinnedDegraded: true, pinnedProgressing: true }), set, GiB, "4.19.10").remedy).toMatch(
      /each prefetch attempt 2 minutes/,
    );
    expect(nodePinProgress(pending({ pinnedDegraded: true, pinnedProgressing: true }), set, GiB, "4.22.3").remedy).toMatch(
      /each prefetch attempt 5 minutes/,
    );
    expect(p.remedy).toMatch(/each prefetch attempt a few minutes \(5 from OpenShift 4\.22, 2 before\)/);
  });

  it("a pull that ran out of retries (wait.ErrWaitTimeout) is a failure: the registry is not answering", () => {
    const error =
      'failed to pull image "x" (5 tries): timed out waiting for the condition: rpc error: code = Unknown desc = dial tcp: i/o timeout';
    expect(nodePinProgress(pending({ pinnedDegraded: true }, error), set, GiB)).toMatchObject({
      state: "failed",
      label: "failed: registry not reachable",
    });
  });
});

/** checkNodeReady (pkg/daemon/pinned_image_set.go): the MCO's own words for a node it will not pull onto. */
describe("checkNodeReady: NotReady and OutOfDisk messages", () => {
  it.each([
    ["node n is reporting NotReady=False", "failed: node not ready", /Ready=False/],
    ["node n is reporting NotReady=Unknown", "failed: node not ready", /Ready=Unknown/],
    ["node n is reporting OutOfDisk=True", "failed: node under disk pressure", /DiskPressure=True/],
    ["node n is reporting OutOfDisk=Unknown", "failed: node under disk pressure", /DiskPressure=Unknown/],
  ])("%s", (error, label, remedy) => {
    const explained = explainPinFailure(error, GiB, 100 * GiB);
    expect(explained.label).toBe(label);
    expect(explained.remedy).toMatch(remedy);
  });

  it("checkNodeAllocatableStorage: the disk remedy is a bigger disk or a smaller bundle, not deleting files", () => {
    const { remedy } = explainPinFailure("storage available is less than minimum required", 10 * GiB, 20 * GiB);
    expect(remedy).toMatch(/deleting files does not raise it: grow the node's disk or use a smaller bundle/);
    expect(remedy).not.toMatch(/crictl rmi/);
  });
});
