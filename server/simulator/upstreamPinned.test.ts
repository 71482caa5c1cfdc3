import { describe, expect, it } from "vitest";
import { ADD_EVENT_HANDLERS, CHECK_NODE_ALLOCATABLE_STORAGE, PREFETCH_IMAGE_SETS, SYNC_HANDLER } from "../domain/upstream/pinnedImageCases";
import { checkNodeAllocatableStorage, newDaemonState, poolPinnedImageSets, syncNode, type Mirror } from "./mco/pinnedImages";

/** The MCO's own pinned-image unit tests (server/domain/upstream/pinnedImageCases.ts), run against the simulated MCO. */
type Any = Record<string, any>;
const GiB = 1024 ** 3;
/** fakeNode(["worker"], …): no conditions, allocatable ephemeral storage only. */
const fakeNode = (allocatable: string) => ({
  metadata: { name: "test-worker", labels: { "node-role.kubernetes.io/worker": "" } },
  status: { allocatable: { "ephemeral-storage": allocatable } },
});
const set = (name: string, images: string[], labels: Record<string, string> = {}) => ({
  metadata: { name, uid: `uid-${name}`, generation: 1, labels },
  spec: { pinnedImages: images.map((n) => ({ name: n })) },
});
const registry =
  (images: string[]): Mirror =>
  (image) =>
    images.includes(image) ? [{ digest: image.split("@")[1]!, size: GiB }] : null;

describe("pkg/daemon/pinned_image_set_test.go TestCheckNodeAllocatableStorage: the simulated daemon's checkNodeAllocatableStorage", () => {
  it.each(CHECK_NODE_ALLOCATABLE_STORAGE.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const state = newDaemonState();
    // "populate the cache with the pinned image set image size"
    state.sizes.set("image1", c.imageBytes);
    const error = checkNodeAllocatableStorage(state, fakeNode(String(c.allocatable)), set("worker-set", ["image1"]), () => null, c.minFree);
    expect(error).toBe(c.wantErr);
  });
});

describe("pkg/daemon/pinned_image_set_test.go TestPrefetchImageSets: the simulated daemon's sync", () => {
  // The simulated daemon does not model a disk filling up mid-pull (ENOSPC): that case runs against the prediction only.
  const cases = PREFETCH_IMAGE_SETS.filter((c) => c.wantPulled !== null);
  it.each(cases.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const state = newDaemonState();
    const input = {
      node: fakeNode("100Gi"),
      pools: [{ name: "worker", sets: [set("fake-pinned-images", c.images)] }],
      mirror: registry(c.registry),
      prefetchTimeoutSeconds: 300,
      pullSeconds: 1,
      now: 0,
    };
    syncNode(state, input);
    syncNode(state, { ...input, now: 60_000 });
    expect(state.onNode.size).toBe(c.wantPulled);
    const entry = state.status!.entries[0] as Any;
    if (c.wantError === null) expect(entry).toMatchObject({ currentGeneration: 1 });
    // The full sync meets the missing image first in getImageSize ("manifest unknown" → errNotFound), before any pull.
    else expect(entry).toMatchObject({ lastFailedGeneration: 1, lastFailedGenerationError: "not found" });
  });
});

describe("pkg/daemon/pinned_image_set_test.go TestPinnedImageSetAddEventHandlers: the simulated daemon syncs only for a set in its pool", () => {
  it.each(ADD_EVENT_HANDLERS.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const state = newDaemonState();
    const pis = set(c.set.name, ["image1"], c.set.labels);
    const sets = (c.poolSets ?? []).includes(pis.metadata.name) ? [pis] : [];
    const pending = syncNode(state, {
      node: fakeNode("100Gi"),
      pools: [{ name: "worker", sets }],
      mirror: () => [{ digest: "sha256:1", size: 1 }],
      prefetchTimeoutSeconds: 300,
      pullSeconds: 1,
      now: 0,
    });
    expect(pending).toBe(c.wantEnqueued);
  });
});

describe("pkg/controller/pinnedimageset/pinned_image_set_test.go TestSyncHandler: the simulated controller's pool spec", () => {
  it.each(SYNC_HANDLER.map((c) => [c.upstream, c] as const))("%s", (_name, c) => {
    const pool = { metadata: { name: c.pool.name }, spec: { machineConfigSelector: c.pool.machineConfigSelector } };
    const names = poolPinnedImageSets(pool, c.set ? [set(c.set.name, ["image1"], c.set.labels)] : []).map((r) => r.name);
    expect(names.length ? names : null).toEqual(c.want);
  });
});

describe("pinned_image_set.go getPoolsForPinnedImageSet: the simulated controller gives no set to a pool with an empty selector (selector.Empty())", () => {
  it.each([
    ["{}", {}],
    ["empty lists", { matchLabels: {}, matchExpressions: [] }],
    ["nil", undefined],
  ])("%s", (_name, selector) => {
    const pool = { metadata: { name: "loose" }, spec: { machineConfigSelector: selector } };
    expect(poolPinnedImageSets(pool, [set("any", ["image1"], { "machineconfiguration.openshift.io/role": "worker" })])).toEqual([]);
  });
});
