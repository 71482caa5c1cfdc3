import { describe, expect, it } from "vitest";
import { answerKey, dropSharedAnswers, sharedAnswer } from "./sharedAnswers";

/** Counts how often an answer is really computed. */
function counter() {
  let calls = 0;
  return { compute: async () => ++calls, calls: () => calls };
}

describe("shared answers", () => {
  it("computes an answer once for everyone asking within two seconds, then again", async () => {
    dropSharedAnswers();
    const c = counter();
    const t = 1_000_000;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => sharedAnswer("window", c.compute, t + i * 50)));
    expect(new Set(answers)).toEqual(new Set([1]));
    expect(c.calls()).toBe(1);
    expect(await sharedAnswer("window", c.compute, t + 2_000)).toBe(2);
    expect(await sharedAnswer("other window", c.compute, t + 2_001)).toBe(3);
  });

  it("keeps an answer that changes by the day for as long as its caller says, and renews it without making anyone wait", async () => {
    dropSharedAnswers();
    let calls = 0;
    let release = () => {};
    // Each computation finishes only when the test releases it.
    const compute = () => new Promise<number>((resolve) => (release = () => resolve(++calls)));
    const sharing = { freshMs: 60_000, keptMs: 3_600_000 };
    const first = sharedAnswer("timeline", compute, 50_000, sharing);
    release();
    expect(await first).toBe(1);
    expect(await sharedAnswer("timeline", compute, 109_999, sharing)).toBe(1);
    // Past its freshness: the kept answer at once, however long the new one takes, and only one new one.
    expect(await sharedAnswer("timeline", compute, 110_000, sharing)).toBe(1);
    expect(await sharedAnswer("timeline", compute, 110_001, sharing)).toBe(1);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(2);
    expect(await sharedAnswer("timeline", compute, 110_002, sharing)).toBe(2);
    // Past what may be kept: computed while the caller waits.
    const late = sharedAnswer("timeline", compute, 110_000 + 3_600_000, sharing);
    release();
    expect(await late).toBe(3);
  });

  it("keeps the old answer when renewing it fails, and tries again at the next call", async () => {
    dropSharedAnswers();
    let calls = 0;
    const compute = async () => {
      calls++;
      if (calls === 2) throw new Error("database gone");
      return calls;
    };
    const sharing = { freshMs: 1_000, keptMs: 60_000 };
    expect(await sharedAnswer("timeline", compute, 0, sharing)).toBe(1);
    expect(await sharedAnswer("timeline", compute, 2_000, sharing)).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await sharedAnswer("timeline", compute, 2_001, sharing)).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(3);
    expect(await sharedAnswer("timeline", compute, 2_002, sharing)).toBe(3);
  });

  it("answers afresh after a person's change", async () => {
    dropSharedAnswers();
    const c = counter();
    expect(await sharedAnswer("window", c.compute, 5_000)).toBe(1);
    dropSharedAnswers();
    expect(await sharedAnswer("window", c.compute, 5_001)).toBe(2);
  });

  it("does not keep a failure for later callers", async () => {
    dropSharedAnswers();
    let fail = true;
    const compute = async () => {
      if (fail) throw new Error("database gone");
      return "rows";
    };
    await expect(sharedAnswer("window", compute, 9_000)).rejects.toThrow("database gone");
    fail = false;
    await expect(sharedAnswer("window", compute, 9_001)).resolves.toBe("rows");
  });

  it("keeps at most 200 answers, dropping the oldest", async () => {
    dropSharedAnswers();
    const c = counter();
    for (let i = 0; i < 201; i++) await sharedAnswer(`view ${i}`, c.compute, 20_000);
    expect(c.calls()).toBe(201);
    await sharedAnswer("view 200", c.compute, 20_001);
    expect(c.calls()).toBe(201);
    await sharedAnswer("view 0", c.compute, 20_001);
    expect(c.calls()).toBe(202);
  });

  it("keys a query the same whatever the order of its parameters", () => {
    expect(answerKey("clusters", { sort: "name", skew: "blocked", q: undefined })).toBe(
      answerKey("clusters", { skew: "blocked", sort: "name" }),
    );
    expect(answerKey("clusters", { skew: "blocked" })).not.toBe(answerKey("clusters", { skew: "ok" }));
  });
});
