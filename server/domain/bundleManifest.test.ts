import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkManifest,
  imageReferenceProblem,
  manifestDigest,
  normalizeDigest,
  pinnedImageSetName,
  pinnedImagesOf,
  totalBytes,
} from "./bundleManifest";
import { GiB, hex, manifest } from "./testing/bundles";

describe("image references (PinnedImageSet ImageDigestFormat)", () => {
  it.each([
    [`quay.io/openshift-release-dev/ocp-release@sha256:${hex("a")}`, null],
    [`mirror.example.com:5000/ocp@sha256:${hex("0")}`, null],
    ["quay.io/openshift-release-dev/ocp-release:4.19.11", /names the tag "4\.19\.11"/],
    [`quay.io/ocp-release@sha256:${hex("A")}`, /64 lowercase hex/],
    [`quay.io/a/b/c@sha256:${hex("a")}`, /host\[:port\]\[\/namespace\]\/name/],
    [`localhost/ocp@sha256:${hex("a")}`, /host\[:port\]/],
    ["", /1 to 447/],
  ])("%s", (ref, problem) => {
    const found = imageReferenceProblem(ref);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toMatch(problem);
  });
});

describe("manifests", () => {
  it("accepts a valid manifest", () => {
    expect(checkManifest(JSON.stringify(manifest))).toEqual({ ok: true, manifest });
  });

  it("the example in docs/examples is a valid manifest", () => {
    const text = readFileSync(path.resolve(__dirname, "../../docs/examples/bundle-4.19.11.json"), "utf8");
    expect(checkManifest(text)).toMatchObject({ ok: true });
  });

  it("counts the release image in the total, once: it is pinned with the others", () => {
    expect(totalBytes(manifest)).toBe(15 * GiB);
    expect(pinnedImagesOf(manifest)).toEqual(manifest.images.map((i) => i.name));
    const withoutRelease = { ...manifest, images: manifest.images.slice(1) };
    const refused = checkManifest(JSON.stringify(withoutRelease));
    expect(refused).toEqual({
      ok: false,
      problems: [
        "images: does not list the release image (release.image). Fleetskew pins the release image with the others and counts its size in the disk check, " +
          "so images[] must list it with its sizeBytes. The manifest cannot be fixed by editing it (that changes its digest, and the vetting no longer applies): " +
          "the bundle must be rebuilt with the release image listed in images[], with its size, and the new manifest vetted again",
      ],
    });
  });

  it.each([
    ["not JSON", "{", /not valid JSON/],
    ["wrong kind", JSON.stringify({ ...manifest, kind: "Bundle" }), /^kind: must be "UpgradeBundle"$/],
    ["no images", JSON.stringify({ ...manifest, images: [] }), /^images: must list at least one image$/],
    [
      "a tag for the release",
      JSON.stringify({ ...manifest, release: { ...manifest.release, image: "quay.io/x/ocp-release:4.19" } }),
      /^release\.image: .*names the tag/,
    ],
    [
      "a fractional size",
      JSON.stringify({ ...manifest, images: [{ ...manifest.images[0], sizeBytes: 1.5 }] }),
      /^images\[0\]\.sizeBytes: must be a whole number/,
    ],
    [
      "an image listed twice",
      JSON.stringify({ ...manifest, images: [manifest.images[0], manifest.images[0]] }),
      /^images\[1\]\.name: .* is listed twice/,
    ],
    ["an unknown field", JSON.stringify({ ...manifest, extra: 1 }), /extra/],
    [
      "a bad release version",
      JSON.stringify({ ...manifest, release: { ...manifest.release, version: "4.19" } }),
      /^release\.version: must be an OpenShift release/,
    ],
    [
      "a release version with leading zeros",
      JSON.stringify({ ...manifest, release: { ...manifest.release, version: "04.019.011" } }),
      /^release\.version: must be an OpenShift release/,
    ],
    [
      "an image size no image has",
      JSON.stringify({ ...manifest, images: [{ ...manifest.images[0], sizeBytes: Number.MAX_SAFE_INTEGER }] }),
      /^images\[0\]\.sizeBytes: must be at most 1 TiB/,
    ],
    ["a bad date", JSON.stringify({ ...manifest, createdAt: "yesterday" }), /^createdAt: must be an ISO 8601 time/],
  ])("refuses %s, naming where", (_what, text, problem) => {
    const result = checkManifest(text);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems.some((p) => problem.test(p))).toBe(true);
  });

  it("digests are of the file's bytes; people may paste them with a prefix and in capitals", () => {
    // As `sha256sum` prints it for the same file.
    expect(manifestDigest("{}\n")).toBe("ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356");
    expect(manifestDigest(Buffer.from("{}\n"))).toBe("ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356");
    expect(normalizeDigest(` sha256:${hex("A")} `)).toBe(hex("a"));
    expect(normalizeDigest("abc")).toBeNull();
  });

  it("names a pool's set after the release, the digest and the pool", () => {
    expect(pinnedImageSetName(manifest, hex("d"), "worker")).toBe("fleetskew-4-19-11-dddddddd-worker");
  });
});
