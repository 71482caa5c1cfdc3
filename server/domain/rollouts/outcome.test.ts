import { describe, expect, it } from "vitest";
import { waveState } from "./outcome";

describe("a wave's state, each cluster's end state counted as it is", () => {
  it("a wave whose clusters were all skipped was skipped, never succeeded", () => {
    expect(waveState({ skipped: 3 })).toBe("skipped");
  });

  it("some succeeded and the rest skipped reads partly skipped; every one succeeded reads succeeded", () => {
    expect(waveState({ succeeded: 1, skipped: 2 })).toBe("partly-skipped");
    expect(waveState({ succeeded: 3 })).toBe("succeeded");
  });

  it("one failure makes the ended wave failed, whatever else was skipped or succeeded", () => {
    expect(waveState({ succeeded: 1, skipped: 1, failed: 1 })).toBe("failed");
  });

  it("a wave still has work while any cluster runs or waits next to ended ones", () => {
    expect(waveState({ running: 1, skipped: 2 })).toBe("running");
    expect(waveState({ pending: 1, skipped: 2 })).toBe("running");
    expect(waveState({ pending: 2, "waiting-window": 1 })).toBe("waiting-for-window");
    expect(waveState({ pending: 2 })).toBe("pending");
  });

  it("excluded clusters never make a wave's state", () => {
    expect(waveState({ succeeded: 2, excluded: 4 })).toBe("succeeded");
  });
});
