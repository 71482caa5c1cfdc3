import { describe, expect, it } from "vitest";
import { endedWords, statusHeadline } from "./words";

describe("how a rollout's page words its outcome", () => {
  it("reads Completed only when every included cluster succeeded", () => {
    expect(statusHeadline({ status: "completed", counts: { succeeded: 7, excluded: 2 }, included: 7 })).toBe("Completed");
    expect(statusHeadline({ status: "completed", counts: { succeeded: 2, skipped: 3, failed: 2 }, included: 7 })).toBe(
      "Completed: 2 of 7 clusters succeeded",
    );
    expect(statusHeadline({ status: "completed", counts: { skipped: 1 }, included: 1 })).toBe("Completed: 0 of 1 cluster succeeded");
  });

  it("other statuses read as they are", () => {
    expect(statusHeadline({ status: "paused", counts: { failed: 2 }, included: 7 })).toBe("Paused");
  });

  it("counts each end state as it is, leaving out the ones no cluster reached", () => {
    expect(endedWords({ succeeded: 1, skipped: 2, failed: 0, running: 3 })).toBe("1 succeeded, 2 skipped");
  });
});
