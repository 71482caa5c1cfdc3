import { describe, expect, it } from "vitest";
import { planWaves } from "./plan";
import { decideProgress, type ProgressCluster, type ProgressStrategy, type ProgressWave } from "./progress";
import { checkWindow } from "./windows";
import { upgradeProgress, type ObservedClusterVersion } from "./upgradeProgress";
import { MAX_STORED_TEXT_BYTES } from "../clip";

const NOW = new Date("2026-11-26T12:00:00Z");
const minutes = (n: number) => n * 60_000;
const strategy = (over: Partial<ProgressStrategy> = {}): ProgressStrategy => ({
  minSuccessMs: 0,
  progressDeadlineMs: null,
  failureBudget: 2,
  onFailure: "pause",
  releaseEachWave: false,
  stepMs: minutes(30),
  ...over,
});

/** 60 clusters, 2 canaries, waves of 10: the plan the integration test runs. */
function sixty() {
  const plan = planWaves(
    Array.from({ length: 60 }, (_, i) => ({ name: `c${String(i).padStart(2, "0")}`, labels: {} })),
    { canaries: 2, maxConcurrency: { count: 10 }, groupBy: null, mandatoryGroups: [], maxFailures: { count: 2 } },
  );
  if (!plan.ok) throw new Error(plan.reason);
  const waves: ProgressWave[] = plan.waves.map((w, index) => ({ index, name: w.name, mandatory: w.mandatory, releasedAt: null }));
  const clusters: ProgressCluster[] = plan.waves.flatMap((w, index) =>
    w.clusters.map((name) => ({ name, wave: index, state: "pending" as const, startedAt: null, finishedAt: null })),
  );
  return { waves, clusters };
}
const set = (clusters: ProgressCluster[], names: string[], state: ProgressCluster["state"], at = NOW) =>
  clusters.map((c) =>
    names.includes(c.name) ? { ...c, state, startedAt: c.startedAt ?? at, finishedAt: state === "running" ? null : at } : c,
  );
const starts = (decisions: ReturnType<typeof decideProgress>) =>
  decisions.filter((d) => d.type === "start").map((d) => (d as { cluster: string }).cluster);

describe("a running rollout's next step", () => {
  it("starts the canaries first, then wave 1 only when both canaries succeeded", () => {
    const { waves, clusters } = sixty();
    expect(starts(decideProgress(waves, clusters, strategy(), NOW, () => null))).toEqual(["c00", "c01"]);
    const oneDone = set(set(clusters, ["c00"], "succeeded"), ["c01"], "running");
    expect(decideProgress(waves, oneDone, strategy(), NOW, () => null)).toEqual([]);
    const bothDone = set(clusters, ["c00", "c01"], "succeeded");
    expect(starts(decideProgress(waves, bothDone, strategy(), NOW, () => null))).toHaveLength(10);
  });

  it("stops before wave 1 when a canary fails, whatever the budget", () => {
    const { waves, clusters } = sixty();
    const failed = set(set(clusters, ["c00"], "failed"), ["c01"], "succeeded");
    expect(decideProgress(waves, failed, strategy({ failureBudget: 10 }), NOW, () => null)).toEqual([
      { type: "pause", reason: "c00 failed in canaries, which tolerates no failure" },
    ]);
  });

  it("pauses when a wave's failures exceed maxFailures, and goes on within it", () => {
    const { waves, clusters } = sixty();
    const canaried = set(clusters, ["c00", "c01"], "succeeded");
    const twoFailed = set(set(canaried, ["c02", "c03"], "failed"), ["c04", "c05", "c06", "c07", "c08", "c09", "c10", "c11"], "succeeded");
    expect(starts(decideProgress(waves, twoFailed, strategy(), NOW, () => null))).toHaveLength(10);
    const threeFailed = set(twoFailed, ["c04"], "failed");
    expect(decideProgress(waves, threeFailed, strategy(), NOW, () => null)).toEqual([
      { type: "pause", reason: "3 clusters failed, more than the 2 the plan tolerates" },
    ]);
    expect(starts(decideProgress(waves, threeFailed, strategy({ onFailure: "continue" }), NOW, () => null))).toHaveLength(10);
  });

  it("times out a step past its deadline, counting it as a failure", () => {
    const { waves, clusters } = sixty();
    const late = set(clusters, ["c00", "c01"], "running", new Date(NOW.getTime() - minutes(90)));
    expect(decideProgress(waves, late, strategy({ progressDeadlineMs: minutes(60) }), NOW, () => null)).toEqual([
      { type: "time-out", cluster: "c00", reason: "did not finish within the progress deadline (1 h)" },
      { type: "time-out", cluster: "c01", reason: "did not finish within the progress deadline (1 h)" },
      { type: "pause", reason: "c00 failed in canaries, which tolerates no failure" },
    ]);
  });

  it("soaks a finished wave for minSuccessTime before the next", () => {
    const { waves, clusters } = sixty();
    const done = set(clusters, ["c00", "c01"], "succeeded", new Date(NOW.getTime() - minutes(10)));
    expect(decideProgress(waves, done, strategy({ minSuccessMs: minutes(30) }), NOW, () => null)).toEqual([
      { type: "soak", wave: 0, until: new Date(NOW.getTime() + minutes(20)) },
    ]);
    expect(starts(decideProgress(waves, done, strategy({ minSuccessMs: minutes(5) }), NOW, () => null))).toHaveLength(10);
  });

  it("holds a cluster until its window opens, and a wave until an approver releases it", () => {
    const { waves, clusters } = sixty();
    const nightly = checkWindow({ schedule: "0 1 * * *", duration: "3h", timeZone: "UTC" });
    const window = nightly.ok ? nightly.window : null;
    const held = decideProgress(waves, clusters, strategy(), NOW, (name) => (name === "c01" ? window : null));
    expect(held).toEqual([
      { type: "start", cluster: "c00" },
      { type: "wait-for-window", cluster: "c01", opensAt: new Date("2026-11-27T01:00:00Z") },
    ]);
    const canaried = set(clusters, ["c00", "c01"], "succeeded");
    expect(decideProgress(waves, canaried, strategy({ releaseEachWave: true }), NOW, () => null)).toEqual([
      { type: "await-release", wave: 1 },
    ]);
    // A wave with a skipped cluster has still not started: it waits too.
    const oneSkipped = set(canaried, [clusters.find((c) => c.wave === 1)!.name], "skipped");
    expect(decideProgress(waves, oneSkipped, strategy({ releaseEachWave: true }), NOW, () => null)).toEqual([
      { type: "await-release", wave: 1 },
    ]);
    const released = waves.map((w) => (w.index === 1 ? { ...w, releasedAt: NOW } : w));
    expect(starts(decideProgress(released, canaried, strategy({ releaseEachWave: true }), NOW, () => null))).toHaveLength(10);
  });

  it("completes when the last wave has ended", () => {
    const { waves, clusters } = sixty();
    const all = set(
      clusters,
      clusters.map((c) => c.name),
      "succeeded",
      new Date(NOW.getTime() - minutes(120)),
    );
    expect(decideProgress(waves, all, strategy({ minSuccessMs: minutes(30) }), NOW, () => null)).toEqual([{ type: "complete" }]);
    // Finished just now: the last wave needs no soak, but every earlier one does.
    const justNow = set(
      clusters,
      clusters.map((c) => c.name),
      "succeeded",
    );
    expect(decideProgress(waves, justNow, strategy({ minSuccessMs: minutes(30) }), NOW, () => null)[0]).toMatchObject({
      type: "soak",
      wave: 0,
    });
  });
});

describe("one cluster's upgrade, as the CVO and the MCO report it", () => {
  const cv = (over: Partial<ObservedClusterVersion> = {}): ObservedClusterVersion => ({
    desiredVersion: "4.19.11",
    history: [
      { state: "Completed", version: "4.19.11" },
      { state: "Completed", version: "4.19.10" },
    ],
    conditions: [],
    ...over,
  });
  const pool = (name: string, updated = "True", degraded = "False", message = "") => ({
    name,
    conditions: [
      { type: "Updated", status: updated },
      { type: "Degraded", status: degraded, message },
    ],
  });

  it("succeeds when history says Completed and every pool is updated", () => {
    expect(upgradeProgress("4.19.11", cv(), [pool("master"), pool("worker")])).toEqual({ state: "succeeded" });
    expect(upgradeProgress("4.19.11", cv(), [pool("master"), pool("worker", "False")])).toEqual({
      state: "running",
      note: "4.19.11 is applied; pools still updating: worker",
    });
    expect(upgradeProgress("4.19.11", cv({ history: [{ state: "Partial", version: "4.19.11" }] }), [])).toMatchObject({ state: "running" });
    expect(upgradeProgress("4.19.11", cv({ history: [{ state: "Completed", version: "4.19.10" }] }), [])).toMatchObject({
      state: "running",
    });
  });

  it("fails in the operators' own words", () => {
    const failing = cv({
      history: [{ state: "Partial", version: "4.19.11" }],
      conditions: [{ type: "Failing", status: "True", message: "Cluster operator etcd is degraded" }],
    });
    expect(upgradeProgress("4.19.11", failing, [])).toEqual({
      state: "failed",
      reason: "the update is failing: Cluster operator etcd is degraded",
    });
    const degraded = upgradeProgress("4.19.11", cv(), [
      pool("worker", "False", "True", 'Node ip-10-0-1-2 is reporting: "failed to drain"'),
    ]);
    expect(degraded).toEqual({ state: "failed", reason: 'pool worker is degraded: Node ip-10-0-1-2 is reporting: "failed to drain"' });
    const refused = cv({
      history: [{ state: "Completed", version: "4.19.10" }],
      conditions: [{ type: "ReleaseAccepted", status: "False", message: 'Precondition "ClusterVersionUpgradeable" failed' }],
    });
    expect(upgradeProgress("4.19.11", refused, [])).toMatchObject({
      state: "failed",
      reason: expect.stringMatching(/^the cluster version operator refused 4\.19\.11: Precondition/),
    });
  });

  it("pools that could not be listed are unknown, never none: ClusterVersion alone is not a success", () => {
    const unread = { unread: "the server is currently unable to handle the request (HTTP 500)" };
    expect(upgradeProgress("4.19.11", cv(), unread)).toEqual({
      state: "running",
      note: "cannot read MachineConfigPools now: the server is currently unable to handle the request (HTTP 500)",
    });
    // What ClusterVersion alone decides still stands: a wait, or a failure.
    expect(upgradeProgress("4.19.11", cv({ history: [{ state: "Partial", version: "4.19.11" }] }), unread)).toEqual({
      state: "running",
      note: "updating to 4.19.11",
    });
    const failing = cv({ conditions: [{ type: "Failing", status: "True", message: "Cluster operator etcd is degraded" }] });
    expect(upgradeProgress("4.19.11", failing, unread)).toMatchObject({ state: "failed" });
    // No pool at all (a kind not served) stays a success.
    expect(upgradeProgress("4.19.11", cv(), [])).toEqual({ state: "succeeded" });
  });

  it("clips a hostile cluster's message in a note or a reason to the stored bound", () => {
    const huge = "m".repeat(30_000_000);
    const running = upgradeProgress(
      "4.19.11",
      cv({ history: [{ state: "Partial", version: "4.19.11" }], conditions: [{ type: "Progressing", status: "True", message: huge }] }),
      [],
    );
    expect(running.state).toBe("running");
    const note = running.state === "running" ? running.note : "";
    expect(note.startsWith("updating: mmm")).toBe(true);
    expect(new TextEncoder().encode(note).length).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
    const failed = upgradeProgress("4.19.11", cv(), [pool("worker", "False", "True", huge)]);
    expect(failed.state === "failed" && new TextEncoder().encode(failed.reason).length).toBeLessThanOrEqual(MAX_STORED_TEXT_BYTES);
    expect(failed.state === "failed" && failed.reason.endsWith("…")).toBe(true);
  });
});
