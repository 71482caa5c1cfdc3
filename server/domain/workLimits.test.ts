import { describe, expect, it } from "vitest";
import { admitWork, retryAfterSeconds, WORK_LIMITS } from "./workLimits";

describe("admitWork", () => {
  it("admits below both limits, refuses the person first, then the total", () => {
    expect(admitWork("preview", { person: 1, total: 5 }, null)).toBeNull();
    expect(admitWork("preview", { person: 2, total: 2 }, 3_200)).toEqual({
      scope: "person",
      retryAfter: 4,
      message: "You already have 2 previews running, the most one person may run at once; wait for it to finish and try again in about 4 s",
    });
    expect(admitWork("preview", { person: 0, total: WORK_LIMITS.preview.total }, 900)?.message).toBe(
      "The console is busy with 6 previews for other people; try again in about 1 s",
    );
  });

  it("names one running request with its article", () => {
    expect(admitWork("export", { person: 1, total: 1 }, null)?.message).toMatch(/^You already have an export running/);
    expect(admitWork("bulk", { person: 1, total: 1 }, null)?.message).toMatch(/^You already have a bulk upload running/);
  });

  it("keeps Retry-After between 1 s and a minute, 2 s before anything has been measured", () => {
    expect([retryAfterSeconds(null), retryAfterSeconds(1), retryAfterSeconds(59_001), retryAfterSeconds(10 * 60_000)]).toEqual([
      2, 1, 60, 60,
    ]);
    expect(retryAfterSeconds(Number.NaN)).toBe(2);
  });
});
