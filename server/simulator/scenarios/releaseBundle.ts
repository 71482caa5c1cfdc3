import { createHash } from "node:crypto";
import type { ClusterSpec } from "../cluster";
import { prodEastObjects } from "./prodEast";

/**
 * A release-sized bundle as a disconnected site's mirror holds it: the release image and the
 * payload's component images (an OpenShift 4.19 payload has about 190), which share the RHEL and
 * OpenShift base layers, each with a layer or two of its own. Deterministic, so a test can write the
 * bundle's manifest from the same list the simulated mirror serves.
 */
export type MirrorImage = { name: string; layers: { digest: string; size: number }[] };
export type ReleaseSizedBundle = { version: string; releaseImage: string; images: MirrorImage[] };

const MiB = 1024 ** 2;
const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const layer = (name: string, size: number) => ({ digest: `sha256:${sha(`layer/${name}`)}`, size });

export function releaseSizedBundle(version = "4.19.11", components = 189): ReleaseSizedBundle {
  const base = [layer("rhel-9.6-base", 79 * MiB), layer(`ocp-${version}-base`, 23 * MiB)];
  const releaseImage = `quay.io/openshift-release-dev/ocp-release@sha256:${sha(`release/${version}`)}`;
  const images: MirrorImage[] = [{ name: releaseImage, layers: [...base, layer(`release/${version}/manifests`, 61 * MiB)] }];
  for (let i = 0; i < components; i++) {
    const h = sha(`component/${version}/${i}`);
    const own = [layer(`component/${version}/${i}/bin`, (8 + (parseInt(h.slice(0, 4), 16) % 180)) * MiB)];
    if (i % 3 === 0) own.push(layer(`component/${version}/${i}/data`, (2 + (parseInt(h.slice(4, 8), 16) % 40)) * MiB));
    images.push({ name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${h}`, layers: [...base, ...own] });
  }
  return { version, releaseImage, images };
}

/**
 * The manifest a site writes for that bundle (docs/bundle-format.md): each image with its layers, since
 * the MCO counts a layer shared by many images once.
 */
export function releaseSizedManifest(bundle: ReleaseSizedBundle) {
  return {
    apiVersion: "fleetskew.io/v1",
    kind: "UpgradeBundle",
    release: { version: bundle.version, image: bundle.releaseImage },
    images: bundle.images.map((i) => ({
      name: i.name,
      sizeBytes: i.layers.reduce((n, l) => n + l.size, 0),
      layers: i.layers.map((l) => ({ digest: l.digest, sizeBytes: l.size })),
    })),
    createdAt: "2026-11-01T09:00:00Z",
  };
}

/**
 * Named scenarios `npm run simulator -- --scenario NAME` adds to the fleet. plant-north: the reference
 * cluster at a site whose mirror holds the release-sized 4.19.11 bundle, with the MCO's prefetch
 * timeout shortened to a simulated minute and thirty seconds per image on a prefetch worker: the
 * control-plane node (one worker) needs about 95 minutes, so every attempt runs out of time and the
 * MCO retries, as it does on real sites with the real five-minute timeout.
 */
export const NAMED_SCENARIOS: Record<string, (tokens: (name: string) => string) => ClusterSpec> = {
  "plant-north": (tokens) => {
    const bundle = releaseSizedBundle();
    return {
      name: "plant-north",
      ocpVersion: "4.19.10",
      token: tokens("plant-north"),
      readOnlyToken: tokens("plant-north-reader"),
      objects: prodEastObjects,
      mco: { prefetchTimeoutSeconds: 60, pullSecondsPerImage: 30 },
      mirror: Object.fromEntries(bundle.images.map((i) => [i.name, i.layers])),
    };
  },
};
