import { describe, expect, it } from "vitest";
import { failureBudget } from "./budget";
import { rolloutFigures } from "./figures";
import { planWaves, type PlanStrategy } from "./plan";

const candidates = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `c${String(i).padStart(2, "0")}`, labels: {} }));

describe("the failure budget, one function for the plan, the page, the runner and /metrics", () => {
  it("is maxFailures over the included clusters, a percentage rounded up, never more than them", () => {
    expect(failureBudget({ maxFailures: { count: 2 } }, 7)).toBe(2);
    expect(failureBudget({ maxFailures: { percent: 10 } }, 7)).toBe(1);
    expect(failureBudget({ maxFailures: { count: 50 } }, 7)).toBe(7);
    expect(failureBudget({ maxFailures: { percent: 10 } }, 0)).toBe(0);
  });

  it("the plan and the figures /metrics reports agree with it, skipped clusters counted as included", () => {
    const strategy: PlanStrategy = { canaries: 0, maxConcurrency: null, groupBy: null, mandatoryGroups: [], maxFailures: { percent: 25 } };
    const plan = planWaves(candidates(7), strategy);
    expect(plan.ok && plan.failureBudget).toBe(failureBudget(strategy, 7));
    const figures = rolloutFigures(
      {
        maxFailures: { percent: 25 },
        minSuccessTime: 0,
        waves: [0],
        groups: [
          { wave: 0, state: "succeeded", count: 2, lastFinishedMs: 1 },
          { wave: 0, state: "skipped", count: 3, lastFinishedMs: 1 },
          { wave: 0, state: "failed", count: 2, lastFinishedMs: 1 },
          { wave: -1, state: "excluded", count: 5, lastFinishedMs: 0 },
        ],
      },
      new Date(),
    );
    expect(figures.failureBudget).toBe(failureBudget(strategy, 7));
    expect(figures.failureBudget).toBe(2);
  });
});
