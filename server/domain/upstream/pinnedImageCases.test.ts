import { describe, expect, it } from "vitest";
import { poolsSelecting } from "../bundlePrechecks";
import { nodePinProgress } from "../bundleProgress";
import { checkPrefetchDisk } from "../prefetchDisk";
import { node } from "../testing/snapshots";
import { CHECK_NODE_ALLOCATABLE_STORAGE, PREFETCH_IMAGE_SETS, SYNC_HANDLER } from "./pinnedImageCases";

/** The MCO's own pinned-image unit tests (pinnedImageCases.ts), run against Fleetskew's predictions. */

describe("pkg/daemon/pinned_image_set_test.go TestCheckNodeAllocatableStorage: Fleetskew's disk prediction", () => {
  it.each(CHECK_NODE_ALLOCATABLE_STORAGE.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    // fakeNode has no conditions: checkNodeReady passes.
    const verdict = checkPrefetchDisk(
      { name: "test-worker", allocatable: c.allocatable, conditions: [] },
      [[{ name: "image1", sizeBytes: c.imageBytes }]],
      c.minFree,
    );
    if (c.wantErr === null) expect(verdict.ok).toBe(true);
    else expect(verdict).toMatchObject({ ok: false, message: c.wantErr });
  });
});

describe("pkg/daemon/pinned_image_set_test.go TestPrefetchImageSets: what Fleetskew tells the technician", () => {
  it.each(PREFETCH_IMAGE_SETS.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const set = { name: "fake-pinned-images", generation: 1 };
    const entry = { set: set.name, desiredGeneration: 1, lastFailedGeneration: c.wantError ? 1 : null, error: c.wantError };
    const progress = nodePinProgress(
      { ...node("test-worker", "worker", [c.wantError ? entry : { ...entry, currentGeneration: 1 }]), pinnedDegraded: !!c.wantError },
      set,
      1024 ** 3,
    );
    if (c.wantError === null) expect(progress.state).toBe("done");
    else
      // A real pull failure, not the prefetch timeout: failed, with its cause.
      expect(progress).toMatchObject({ state: "failed", label: c.fleetskewLabel, error: c.wantError });
  });
});

describe("pkg/controller/pinnedimageset/pinned_image_set_test.go TestSyncHandler: the pools Fleetskew predicts a set lands in", () => {
  it.each(SYNC_HANDLER.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const selected = c.set ? poolsSelecting([c.pool], c.set.labels).includes(c.pool.name) : false;
    expect(selected ? [c.set!.name] : null).toEqual(c.want);
  });
});
