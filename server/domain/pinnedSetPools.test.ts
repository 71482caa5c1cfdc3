import { describe, expect, it } from "vitest";
import { labelsForPool, poolsSelecting, selectorIsEmpty } from "./pinnedSetPools";

const ROLE = "machineconfiguration.openshift.io/role";
const worker = { name: "worker", machineConfigSelector: { matchLabels: { [ROLE]: "worker" } } };

describe("pinned_image_set.go getPoolsForPinnedImageSet: a pool with a nil or empty machineConfigSelector gets no PinnedImageSet (selector.Empty())", () => {
  it.each([
    ["an empty selector {}", {}],
    ["empty matchLabels and matchExpressions", { matchLabels: {}, matchExpressions: [] }],
    ["no selector at all", undefined],
  ])("%s matches no set, whatever its labels", (_name, selector) => {
    const loose = { name: "loose", machineConfigSelector: selector };
    expect(selectorIsEmpty(selector)).toBe(true);
    expect(poolsSelecting([worker, loose], { [ROLE]: "worker" })).toEqual(["worker"]);
    expect(poolsSelecting([loose], {})).toEqual([]);
    expect(labelsForPool(loose, [worker, loose])).toBeNull();
  });

  it("a selector with one requirement still selects by it", () => {
    expect(selectorIsEmpty(worker.machineConfigSelector)).toBe(false);
    expect(labelsForPool(worker, [worker])).toEqual({ [ROLE]: "worker" });
  });
});
