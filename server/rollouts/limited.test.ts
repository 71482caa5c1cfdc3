import { describe, expect, it } from "vitest";
import { eachLimited } from "./limited";

/** A promise resolved or rejected from outside. */
function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
const settle = () => new Promise((r) => setImmediate(r));

describe("eachLimited", () => {
  it("starts at most `limit` items at once, and each once", async () => {
    const steps = Array.from({ length: 5 }, deferred);
    const started: number[] = [];
    const done = eachLimited([0, 1, 2, 3, 4], 2, (i) => (started.push(i), steps[i]!.promise));
    await settle();
    expect(started).toEqual([0, 1]);
    steps[1]!.resolve();
    await settle();
    expect(started).toEqual([0, 1, 2]);
    for (const s of steps) s.resolve();
    await done;
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it("after a failure starts nothing more, and settles only once the items in flight have ended", async () => {
    const steps = Array.from({ length: 6 }, deferred);
    const started: number[] = [];
    let settled = false;
    const done = eachLimited([0, 1, 2, 3, 4, 5], 3, (i) => (started.push(i), steps[i]!.promise)).finally(() => (settled = true));
    done.catch(() => undefined);
    await settle();
    steps[0]!.reject(new Error("connection terminated"));
    await settle();
    // Items 1 and 2 are still being worked on: the call has not settled, and item 3 has not started.
    expect(settled).toBe(false);
    expect(started).toEqual([0, 1, 2]);
    steps[1]!.resolve();
    await settle();
    expect(settled).toBe(false);
    steps[2]!.reject(new Error("a second failure"));
    await expect(done).rejects.toThrow("connection terminated");
    expect(started).toEqual([0, 1, 2]);
  });
});
