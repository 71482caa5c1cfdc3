import { describe, expect, it } from "vitest";
import { rolloutFigures, type WaveStateCount } from "./figures";
import { planWaves } from "./plan";
import { waveAwaitingRelease } from "./release";
import { RolloutRequestSchema } from "./request";

/**
 * A rollout over 10,000 clusters with maxConcurrency 1: 10,000 waves of one cluster, as the planner
 * makes them. What /metrics (rolloutFigures) and a viewer's GET (waveAwaitingRelease) work out from
 * its counts per wave and state, each in one pass over them (the benchmark, bench/rolloutScale.ts,
 * times them; this checks what they say).
 */
const SIZE = 10_000;
const name = (i: number) => `store-${String(i).padStart(5, "0")}`;
const planned = planWaves(
  Array.from({ length: SIZE }, (_, i) => ({ name: name(i), labels: {} })),
  { canaries: 0, maxConcurrency: { count: 1 }, groupBy: null, mandatoryGroups: [], maxFailures: { count: 10 } },
);
const waves = planned.ok ? planned.waves.map((_, index) => index) : [];
const finishedAt = Date.parse("2026-11-26T11:00:00Z");

/** The counts the store gives: the first `done` waves succeeded (every 1,000th failed), the next running, the rest pending. */
function countsAfter(done: number, running: boolean): WaveStateCount[] {
  return waves.map((wave) => {
    if (wave < done) return { wave, state: wave % 1000 === 999 ? "failed" : "succeeded", count: 1, lastFinishedMs: finishedAt + wave };
    if (wave === done && running) return { wave, state: "running", count: 1, lastFinishedMs: 0 };
    return { wave, state: "pending", count: 1, lastFinishedMs: 0 };
  });
}

describe("a 10,000-cluster rollout at maxConcurrency 1", () => {
  it("is planned as 10,000 waves of one cluster", () => {
    expect(planned.ok && planned.waves.length).toBe(SIZE);
    expect(planned.ok && planned.waves.every((w) => w.clusters.length === 1)).toBe(true);
  });

  it("awaiting approval: every cluster pending, wave 0 the one in progress", () => {
    const f = rolloutFigures(
      { maxFailures: { count: 10 }, minSuccessTime: 0, waves, groups: countsAfter(0, false) },
      new Date("2026-11-26T12:00:00Z"),
    );
    expect(f).toMatchObject({ failures: 0, failureBudget: 10, failureBudgetUsed: 0, wave: 0, soaking: false, waves: SIZE });
    expect(f.clusters).toMatchObject({ pending: SIZE, running: 0, succeeded: 0 });
  });

  it("part-way: the running wave, the failures against the budget, and a soak after the last ended wave", () => {
    const groups = countsAfter(7_000, true);
    const f = rolloutFigures({ maxFailures: { percent: 1 }, minSuccessTime: 0, waves, groups }, new Date("2026-11-26T12:00:00Z"));
    expect(f).toMatchObject({ failures: 7, failureBudget: 100, failureBudgetUsed: 0.07, wave: 7_000, waves: SIZE });
    expect(f.clusters).toMatchObject({ succeeded: 6_993, failed: 7, running: 1, pending: 2_999 });
    const soaking = rolloutFigures(
      { maxFailures: { count: 10 }, minSuccessTime: 3_600_000, waves, groups: countsAfter(7_000, false) },
      new Date(finishedAt + 6_999 + 60_000),
    );
    // Wave 0 ended an hour before the others: the soak holds at the first ended wave still within its hour.
    expect(soaking).toMatchObject({ wave: 0, soaking: true });
  });

  it("the wave awaiting release, when each wave is released by an approver", () => {
    const request = RolloutRequestSchema.parse({
      kind: "upgrade",
      target: "4.19.11",
      selection: { query: "" },
      strategy: { maxConcurrency: 1, releaseEachWave: true },
    });
    const released = (upTo: number) => waves.map((index) => ({ index, releasedAt: index <= upTo ? "2026-11-26T10:00:00Z" : null }));
    const counts = (done: number) => countsAfter(done, false).map(({ wave, state, count }) => ({ wave, state, count }));
    expect(waveAwaitingRelease(request, released(0), counts(0))).toBeNull(); // wave 0 starts once the rollout is approved
    expect(waveAwaitingRelease(request, released(6_999), counts(7_000))).toBe(7_000);
    expect(waveAwaitingRelease(request, released(7_000), counts(7_000))).toBeNull();
    expect(waveAwaitingRelease(request, released(SIZE), counts(SIZE))).toBeNull();
  });
});
