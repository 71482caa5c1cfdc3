import { describe, expect, it } from "vitest";
import { rolloutFigures } from "./figures";

const now = new Date("2026-11-26T12:00:00Z");
const at = (iso: string) => new Date(iso).getTime();

describe("a rollout's figures for /metrics, from its counts per wave and state", () => {
  it("counts every state, 0 included, and the wave still working", () => {
    const f = rolloutFigures(
      {
        maxFailures: { count: 2 },
        minSuccessTime: 0,
        waves: [0, 1, 2],
        groups: [
          { wave: -1, state: "excluded", count: 3, lastFinishedMs: 0 },
          { wave: 0, state: "succeeded", count: 2, lastFinishedMs: at("2026-11-26T11:00:00Z") },
          { wave: 1, state: "succeeded", count: 4, lastFinishedMs: at("2026-11-26T11:30:00Z") },
          { wave: 1, state: "failed", count: 1, lastFinishedMs: at("2026-11-26T11:40:00Z") },
          { wave: 1, state: "running", count: 5, lastFinishedMs: 0 },
          { wave: 2, state: "pending", count: 10, lastFinishedMs: 0 },
        ],
      },
      now,
    );
    expect(f.clusters).toEqual({
      pending: 10,
      "waiting-window": 0,
      running: 5,
      succeeded: 6,
      failed: 1,
      skipped: 0,
      excluded: 3,
    });
    expect(f).toMatchObject({ failures: 1, failureBudget: 2, failureBudgetUsed: 0.5, wave: 1, soaking: false, waves: 3 });
  });

  it("a percentage budget is over the included clusters, rounded up; a failure with none tolerated is +Inf", () => {
    const groups = [
      { wave: 0, state: "failed", count: 3, lastFinishedMs: 0 },
      { wave: 0, state: "running", count: 17, lastFinishedMs: 0 },
      { wave: -1, state: "excluded", count: 80, lastFinishedMs: 0 },
    ];
    expect(rolloutFigures({ maxFailures: { percent: 10 }, minSuccessTime: 0, waves: [0], groups }, now)).toMatchObject({
      failureBudget: 2,
      failureBudgetUsed: 1.5,
    });
    expect(rolloutFigures({ maxFailures: { count: 0 }, minSuccessTime: 0, waves: [0], groups }, now).failureBudgetUsed).toBe(Infinity);
    expect(
      rolloutFigures({ maxFailures: { count: 0 }, minSuccessTime: 0, waves: [0], groups: [{ ...groups[1]! }] }, now).failureBudgetUsed,
    ).toBe(0);
  });

  it("a wave that ended soaks for minSuccessTime before the next counts as worked on", () => {
    const groups = [
      { wave: 0, state: "succeeded", count: 2, lastFinishedMs: at("2026-11-26T11:50:00Z") },
      { wave: 1, state: "pending", count: 8, lastFinishedMs: 0 },
    ];
    const soaking = rolloutFigures({ maxFailures: { count: 0 }, minSuccessTime: 30 * 60_000, waves: [0, 1], groups }, now);
    expect(soaking).toMatchObject({ wave: 0, soaking: true });
    const soaked = rolloutFigures({ maxFailures: { count: 0 }, minSuccessTime: 5 * 60_000, waves: [0, 1], groups }, now);
    expect(soaked).toMatchObject({ wave: 1, soaking: false });
  });

  it("a state the code does not know counts as unknown; every wave ended reports the last", () => {
    const f = rolloutFigures(
      {
        maxFailures: null,
        minSuccessTime: null,
        waves: [0, 1],
        groups: [
          { wave: 0, state: "succeeded", count: 1, lastFinishedMs: 1 },
          { wave: 1, state: "skipped", count: 1, lastFinishedMs: 1 },
          { wave: 1, state: "quarantined", count: 2, lastFinishedMs: 1 },
        ],
      },
      now,
    );
    expect(f.clusters).toMatchObject({ unknown: 2, skipped: 1 });
    expect(f.wave).toBe(1);
  });
});

describe("a rollout's figures when clusters were skipped", () => {
  it("skipped clusters count as skipped: neither succeeded nor failed, and they spend none of the budget", () => {
    const f = rolloutFigures(
      {
        maxFailures: { count: 0 },
        minSuccessTime: 0,
        waves: [0, 1],
        groups: [
          { wave: 0, state: "succeeded", count: 2, lastFinishedMs: at("2026-11-26T11:00:00Z") },
          { wave: 1, state: "skipped", count: 3, lastFinishedMs: at("2026-11-26T11:10:00Z") },
          { wave: 1, state: "failed", count: 2, lastFinishedMs: at("2026-11-26T11:10:00Z") },
        ],
      },
      now,
    );
    expect(f.clusters).toMatchObject({ succeeded: 2, skipped: 3, failed: 2, running: 0, pending: 0 });
    expect(f).toMatchObject({ failures: 2, failureBudget: 0, failureBudgetUsed: Infinity, wave: 1 });
  });
});
