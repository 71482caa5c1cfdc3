import { describe, expect, it } from "vitest";
import { KubeError } from "./client";
import { KINDS } from "./kinds";
import { FORGET_AFTER_MS, NotServedMemo } from "./notServed";

const notServed = new KubeError("not-served", "InternalReleaseImage is not available on this cluster", 404);

function memoAt(start = 0) {
  let now = start;
  const memo = new NotServedMemo(() => now);
  return { memo, advance: (ms: number) => (now += ms) };
}

describe("NotServedMemo", () => {
  it("answers a kind from memory only once a sweep found the release it was told under", () => {
    const { memo } = memoAt();
    memo.startSweep();
    memo.remember(KINDS.internalReleaseImage, notServed);
    // Not yet: the sweep that was told has not said which release it found.
    expect(memo.known(KINDS.internalReleaseImage)).toBeNull();
    expect(memo.confirm("4.19.10/")).toBe(true);
    memo.startSweep();
    const known = memo.known(KINDS.internalReleaseImage);
    expect(known).toMatchObject({ kind: "not-served", status: 404, message: notServed.message });
    expect(memo.known(KINDS.osImageStream)).toBeNull();
    expect(memo.confirm("4.19.10/")).toBe(true);
  });

  it("keeps an answer without its stack trace, which would hold what its frames held for an hour", () => {
    const { memo } = memoAt();
    const answer = new KubeError("not-served", "OSImageStream is not available on this cluster", 404);
    expect(answer.stack!.split("\n").length).toBeGreaterThan(1);
    memo.startSweep();
    memo.remember(KINDS.osImageStream, answer);
    memo.confirm("4.19.10/");
    memo.startSweep();
    expect(memo.known(KINDS.osImageStream)?.stack).toBe(`${answer.name}: OSImageStream is not available on this cluster`);
  });

  it("never remembers an object that is missing, only a kind", () => {
    const { memo } = memoAt();
    memo.startSweep();
    memo.remember(KINDS.provisioning, new KubeError("not-found", 'provisionings "provisioning-configuration" not found', 404));
    memo.confirm("4.19.10/");
    memo.startSweep();
    expect(memo.known(KINDS.provisioning)).toBeNull();
  });

  it("asks again when the release or feature set changes: a sweep answered from memory under another one is read again", () => {
    const { memo } = memoAt();
    memo.startSweep();
    memo.remember(KINDS.internalReleaseImage, notServed);
    memo.confirm("4.21.4/");
    memo.startSweep();
    expect(memo.known(KINDS.internalReleaseImage)).not.toBeNull();
    expect(memo.confirm("4.22.1/")).toBe(false);
    // The read again asks every kind and learns under the new release.
    memo.startSweep();
    expect(memo.known(KINDS.internalReleaseImage)).toBeNull();
    expect(memo.confirm("4.22.1/")).toBe(true);
    memo.startSweep();
    expect(memo.known(KINDS.internalReleaseImage)).toBeNull();
  });

  it("trusts nothing while an update is under way or the release is unknown", () => {
    const { memo } = memoAt();
    memo.startSweep();
    memo.remember(KINDS.internalReleaseImage, notServed);
    memo.confirm("4.21.4/");
    memo.startSweep();
    memo.known(KINDS.internalReleaseImage);
    expect(memo.confirm("")).toBe(false);
    memo.startSweep();
    expect(memo.known(KINDS.internalReleaseImage)).toBeNull();
    memo.remember(KINDS.internalReleaseImage, notServed);
    expect(memo.confirm("")).toBe(true);
    memo.startSweep();
    expect(memo.known(KINDS.internalReleaseImage)).toBeNull();
  });

  it(`asks again after ${FORGET_AFTER_MS / 60_000} minutes even when the release stays (an operator installed between updates)`, () => {
    const { memo, advance } = memoAt(1_000);
    memo.startSweep();
    memo.remember(KINDS.provisioning, new KubeError("not-served", "Provisioning is not available on this cluster", 404));
    memo.confirm("4.19.10/");
    advance(FORGET_AFTER_MS - 1);
    memo.startSweep();
    expect(memo.known(KINDS.provisioning)).not.toBeNull();
    memo.confirm("4.19.10/");
    advance(2);
    memo.startSweep();
    expect(memo.known(KINDS.provisioning)).toBeNull();
  });
});
