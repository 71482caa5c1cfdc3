import type { BundleManifest } from "../bundleManifest";

export const GiB = 1024 ** 3;
export const hex = (c: string) => c.repeat(64);

/** A valid manifest of three 5 GiB images, the release image among them. */
export const manifest: BundleManifest = {
  apiVersion: "fleetskew.io/v1",
  kind: "UpgradeBundle",
  release: { version: "4.19.11", image: `quay.io/openshift-release-dev/ocp-release@sha256:${hex("a")}` },
  images: [
    { name: `quay.io/openshift-release-dev/ocp-release@sha256:${hex("a")}`, sizeBytes: 5 * GiB },
    { name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex("b")}`, sizeBytes: 5 * GiB },
    { name: `mirror.example.com:5000/ocp4/openshift4@sha256:${hex("c")}`, sizeBytes: 5 * GiB },
  ],
  createdAt: "2026-11-01T09:00:00Z",
};
