import { describe, expect, it } from "vitest";
import { goDuration, newDaemonState, poolsForNode, prefetchTimeoutFor, syncNode, workerCount, type NodeSync } from "./pinnedImages";

/** The simulated machine-config-daemon's PinnedImageSetManager (pkg/daemon/pinned_image_set.go), beyond the transcribed upstream cases. */
type Any = Record<string, any>;
const GiB = 1024 ** 3;
const node = (name: string, role: "worker" | "master" = "worker", conditions: Any[] = []) => ({
  metadata: { name, labels: { [`node-role.kubernetes.io/${role}`]: "" } },
  status: { allocatable: { "ephemeral-storage": "100Gi" }, conditions },
});
const images = (n: number) => Array.from({ length: n }, (_, i) => `quay.io/x/app@sha256:${String(i).padStart(64, "0")}`);
const set = (names: string[], generation = 1) => ({
  metadata: { name: "bundle", uid: "u1", generation },
  spec: { pinnedImages: names.map((name) => ({ name })) },
});
const input = (over: Partial<NodeSync> = {}): NodeSync => ({
  node: node("w1"),
  pools: [{ name: "worker", sets: [set(images(20))] }],
  mirror: (image) => [{ digest: `sha256:${image.slice(-8)}`, size: GiB / 4 }],
  prefetchTimeoutSeconds: 60,
  pullSeconds: 30,
  now: 0,
  ...over,
});

describe("PinnedImageSetManager.sync under its prefetch timeout", () => {
  it("the timeout is the release's (cmd/machine-config-daemon/start.go) and printed as Go prints a Duration", () => {
    expect([prefetchTimeoutFor(19), prefetchTimeoutFor(21), prefetchTimeoutFor(22)]).toEqual([120, 120, 300]);
    expect([goDuration(300), goDuration(120), goDuration(60), goDuration(90), goDuration(45), goDuration(3600)]).toEqual([
      "5m0s",
      "2m0s",
      "1m0s",
      "1m30s",
      "45s",
      "1h0m0s",
    ]);
  });

  it("past the deadline it writes errRequeueAfterTimeout, keeps what was pulled, and the next attempt carries on", () => {
    const state = newDaemonState();
    expect(syncNode(state, input())).toBe(true);
    expect(state.status).toMatchObject({ progressing: true, degraded: false, entries: [{ name: "bundle", desiredGeneration: 1 }] });
    // At the deadline exactly: 2 rounds of 5 workers are in; the next sync is 5ms away (the rate limiter's first step).
    syncNode(state, input({ now: 60_000 }));
    expect(state.onNode.size).toBe(10);
    expect(state.status).toMatchObject({
      progressing: true,
      degraded: true,
      entries: [{ lastFailedGeneration: 1, lastFailedGenerationError: "requeue: prefetching images incomplete after timeout: 1m0s" }],
    });
    // The next sync: updateStatusProgressing drops the set's error; PinnedImageSetsDegraded stays until a sync completes.
    syncNode(state, input({ now: 61_000 }));
    expect(state.status!.entries[0]).toEqual({ name: "bundle", desiredGeneration: 1 });
    expect(state.status).toMatchObject({ progressing: true, degraded: true });
    // The second attempt pulls only the ten images still missing: done within it.
    syncNode(state, input({ now: 60_005 + 60_000 }));
    expect(state.onNode.size).toBe(20);
    expect(state.status).toMatchObject({
      progressing: false,
      progressingMessage: "All pinned image sets complete",
      degraded: false,
      entries: [{ currentGeneration: 1 }],
    });
    expect(syncNode(state, input({ now: 10 * 60_000 }))).toBe(false);
  });

  it("a control-plane node prefetches on one worker (getWorkerCount), so it needs more attempts", () => {
    expect(workerCount(node("m1", "master"))).toBe(1);
    const state = newDaemonState();
    const master = input({ node: node("m1", "master") });
    syncNode(state, master);
    syncNode(state, { ...master, now: 60_000 });
    expect(state.onNode.size).toBe(2);
  });

  it("a changed set cancels the sync under way and starts another (updatePinnedImageSet → cancelWorkload)", () => {
    const state = newDaemonState();
    syncNode(state, input());
    syncNode(state, input({ now: 30_000 }));
    expect(state.onNode.size).toBe(5);
    const changed = input({ now: 40_000, pools: [{ name: "worker", sets: [set(images(25), 2)] }] });
    syncNode(state, changed);
    expect(state.attempt!.started).toBe(40_000);
    expect(state.attempt!.pulls).toHaveLength(20); // the five already on the node are not pulled again
  });

  it("an error requeues with the work queue's backoff; a node event does not enqueue a sync", () => {
    const state = newDaemonState();
    const notReady = input({ node: node("w1", "worker", [{ type: "Ready", status: "False" }]) });
    syncNode(state, notReady);
    expect(state.status!.entries[0]!.lastFailedGenerationError).toBe("node w1 is reporting NotReady=False");
    expect(state.nextSync).toBeGreaterThan(0);
    // Fifteen quick retries (5ms·2ⁿ, about 164 s in all), then a minute: back within that once the node is Ready.
    const ready = input({ now: 200_000 });
    syncNode(state, ready);
    syncNode(state, { ...ready, now: 400_000 });
    expect(state.status!.entries[0]).toMatchObject({ currentGeneration: 1 });
  });

  it("GetPoolsForNode: a custom pool comes with worker, master wins over a custom pool", () => {
    const pool = (name: string, label: string) => ({
      metadata: { name },
      spec: { nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${label}`]: "" } } },
    });
    const pools = [pool("master", "master"), pool("worker", "worker"), pool("infra", "infra")];
    const infra = { metadata: { name: "i1", labels: { "node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/worker": "" } } };
    expect(poolsForNode(infra, pools).map((p) => p.metadata.name)).toEqual(["infra", "worker"]);
    const both = { metadata: { name: "m1", labels: { "node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/master": "" } } };
    expect(poolsForNode(both, pools).map((p) => p.metadata.name)).toEqual(["master"]);
  });
});
