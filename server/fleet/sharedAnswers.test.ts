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
