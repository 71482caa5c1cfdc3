import { describe, expect, it } from "vitest";
import { checkManifest, prefetchImages } from "./bundleManifest";
import { checkPrefetchDisk, distinctBytes, nodeReadyProblem, payloadBytes } from "./prefetchDisk";
import { GiB, hex, manifest } from "./testing/bundles";

const layer = (c: string, size: number) => ({ digest: `sha256:${hex(c)}`, sizeBytes: size });
const image = (c: string, layers: { digest: string; sizeBytes: number }[]) => ({
  name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex(c)}`,
  sizeBytes: layers.reduce((n, l) => n + l.sizeBytes, 0),
  layers,
});
const BASE = layer("0", 4 * GiB);

describe("checkImagePayloadStorage / getImageSize (pkg/daemon/pinned_image_set.go)", () => {
  it("counts each layer digest once across images (imageCache.HasDigest)", () => {
    const images = [image("a", [BASE, layer("1", GiB)]), image("b", [BASE, layer("2", GiB)])];
    // Whole sizes would be 2 × 10 GiB; the shared base counts once: 2 × 6 GiB.
    expect(payloadBytes(images, new Set())).toBe(12 * GiB);
  });

  it("skips images already on the node (criClient.ImageStatus)", () => {
    const images = [image("a", [layer("1", GiB)]), image("b", [layer("2", 3 * GiB)])];
    expect(payloadBytes(images, new Set([images[1]!.name]))).toBe(2 * GiB);
  });

  it("a bundle's bytes with each layer once: what the upload shows beside the whole sizes", () => {
    expect(distinctBytes([image("a", [BASE, layer("1", GiB)]), image("b", [BASE, layer("2", GiB)])])).toBe(6 * GiB);
  });

  it("counts an image without layers by its whole size", () => {
    expect(payloadBytes([{ name: "x", sizeBytes: 5 * GiB }], new Set())).toBe(10 * GiB);
  });

  it("layers seen in an earlier set of the same pool are not counted again (ClearDigests runs after the pool's sets)", () => {
    const seen = new Set<string>();
    expect(payloadBytes([image("a", [BASE])], new Set(), seen)).toBe(8 * GiB);
    expect(payloadBytes([image("b", [BASE, layer("1", GiB)])], new Set(), seen)).toBe(2 * GiB);
  });
});

describe("checkNodeAllocatableStorage: each PinnedImageSet checked separately against allocatable ephemeral storage", () => {
  const node = (allocatable: number | null, conditions: { type: string; status: string }[] = [], images: string[] = []) => ({
    name: "w1",
    allocatable,
    conditions,
    images,
  });
  it("accepts a node whose whole-size sum would fail but whose shared layers fit", () => {
    const images = [image("a", [BASE, layer("1", GiB)]), image("b", [BASE, layer("2", GiB)])];
    // 30 GiB allocatable: room 14 GiB. Whole sizes need 20 GiB (refused); layers once need 12 GiB.
    expect(checkPrefetchDisk(node(30 * GiB), [images])).toMatchObject({ ok: true, required: 12 * GiB });
  });

  it("checks two sets each on its own: their sum may exceed the room", () => {
    const a = [image("a", [layer("1", 6 * GiB)])];
    const b = [image("b", [layer("2", 6 * GiB)])];
    expect(checkPrefetchDisk(node(30 * GiB), [a, b])).toMatchObject({ ok: true });
    expect(checkPrefetchDisk(node(30 * GiB), [[...a, ...b]])).toMatchObject({ ok: false, rule: "payload" });
  });

  it("refuses allocatable below MinFreeStorageAfterPrefetch with the MCO's message", () => {
    expect(checkPrefetchDisk(node(15 * GiB), [[image("a", [layer("1", 1)])]])).toMatchObject({
      ok: false,
      rule: "below-minimum",
      message: `storage available is less than minimum required capacity: ${15 * GiB}, required: ${16 * GiB}`,
    });
    expect(checkPrefetchDisk(node(null), [[]])).toMatchObject({ ok: false, message: 'node "w1" has no ephemeral storage capacity' });
  });

  it("checkNodeReady comes first: NotReady and OutOfDisk (DiskPressure Unknown too)", () => {
    const ok = [image("a", [layer("1", 1)])];
    expect(checkPrefetchDisk(node(100 * GiB, [{ type: "Ready", status: "Unknown" }]), [ok])).toMatchObject({
      ok: false,
      message: "node w1 is reporting NotReady=Unknown",
    });
    expect(
      nodeReadyProblem({
        name: "w1",
        conditions: [
          { type: "DiskPressure", status: "Unknown" },
          { type: "Ready", status: "True" },
        ],
      }),
    ).toEqual({
      rule: "out-of-disk",
      message: "node w1 is reporting OutOfDisk=Unknown",
    });
    expect(nodeReadyProblem({ name: "w1", conditions: [] })).toBeNull();
  });
});

describe("manifests with layers (docs/bundle-format.md)", () => {
  const withLayers = { ...manifest, images: manifest.images.map((i, n) => ({ ...i, layers: [layer(String(n + 1), i.sizeBytes)] })) };
  it("accepts layers whose sizes add up to the image's size, and the disk check reads them", () => {
    const parsed = checkManifest(JSON.stringify(withLayers));
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(prefetchImages(parsed.manifest)[0]!.layers).toHaveLength(1);
  });
  it("refuses layers that do not add up, and bad digests", () => {
    const bad = { ...withLayers, images: [{ ...withLayers.images[0]!, sizeBytes: 1 }, ...withLayers.images.slice(1)] };
    expect(checkManifest(JSON.stringify(bad))).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^images\[0\]\.sizeBytes: must be the sum of the image's layers/)],
    });
    const digest = {
      ...withLayers,
      images: [{ ...withLayers.images[0]!, layers: [{ digest: "sha256:ABC", sizeBytes: 5 * GiB }] }, ...withLayers.images.slice(1)],
    };
    expect(checkManifest(JSON.stringify(digest))).toMatchObject({ ok: false });
  });
});
