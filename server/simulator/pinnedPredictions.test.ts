import { describe, expect, it } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { checkManifest, prefetchImages, totalBytes, type BundleManifest } from "../domain/bundleManifest";
import { diskVerdict } from "../domain/bundlePrechecks";
import { nodePinProgress, type NodeProgress } from "../domain/bundleProgress";
import { checkPrefetchDisk } from "../domain/prefetchDisk";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { readClusterObjects } from "../kube/readers";
import { Fleet, type SimCluster } from "./cluster";
import { checkNodeAllocatableStorage, newDaemonState } from "./mco/pinnedImages";
import { Reconciler } from "./reconciler";
import { NAMED_SCENARIOS, releaseSizedBundle, releaseSizedManifest } from "./scenarios/releaseBundle";

/**
 * Items 8–11 of the pinned-image workflow: Fleetskew's prechecks and progress, read through the same
 * readers and normalizer as a live sweep, against what the simulated MCO (mco/pinnedImages.ts,
 * written from pkg/daemon/pinned_image_set.go, not from Fleetskew's code) does with a release-sized
 * bundle on the plant-north scenario.
 */
type Any = Record<string, any>;
const GiB = 1024 ** 3;
const bundle = releaseSizedBundle();
const manifest: BundleManifest = (() => {
  const checked = checkManifest(JSON.stringify(releaseSizedManifest(bundle)));
  if (!checked.ok) throw new Error(checked.problems.join("; "));
  return checked.manifest;
})();

function plantNorth() {
  let t = Date.parse("2026-11-20T08:00:00Z");
  const fleet = new Fleet();
  fleet.add(NAMED_SCENARIOS["plant-north"]!(() => "token"));
  const cluster = fleet.get("plant-north")!;
  const reconciler = new Reconciler(fleet, { now: () => new Date(t) });
  const at = (seconds: number) => {
    t = Date.parse("2026-11-20T08:00:00Z") + seconds * 1000;
    reconciler.reconcile(cluster);
  };
  return { cluster, at };
}

const kind = (cluster: SimCluster, k: string) => cluster.kinds.find((i) => i.kind === k)!;
const objectsOf = (cluster: SimCluster) => cluster.kinds.flatMap((info) => cluster.store.list(info, undefined) as Any[]);

function pin(cluster: SimCluster, pool: string) {
  cluster.store.create(kind(cluster, "PinnedImageSet"), undefined, {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "PinnedImageSet",
    metadata: { name: `bundle-${pool}`, labels: { "machineconfiguration.openshift.io/role": pool } },
    spec: { pinnedImages: manifest.images.map((i) => ({ name: i.name })) },
  } as never);
}

/** What a technician following the application sees for each node, from the cluster as a sweep reads it. */
async function progressOf(cluster: SimCluster): Promise<NodeProgress[]> {
  const snapshot = normalizeSnapshot(await readClusterObjects(new CapturedCluster(objectsOf(cluster) as DumpObject[])));
  const sets = new Map(snapshot.pinnedImageSets.map((s) => [s.name, s.generation]));
  return snapshot.nodes.map((n) => {
    const set = `bundle-${n.pool}`;
    return nodePinProgress(n, { name: set, generation: sets.get(set) ?? null }, totalBytes(manifest));
  });
}

describe("item 8, PinnedImageSetManager.sync: a release-sized prefetch past the timeout is still pulling, not failed", () => {
  it("from the first timeout to the last image, every node reads as pulling or done, the retry explained, and all finish", async () => {
    const { cluster, at } = plantNorth();
    for (const pool of ["master", "worker", "infra"]) pin(cluster, pool);
    at(0);
    const seen = new Set<string>();
    let retried = 0;
    // The control-plane node pulls on one worker: 190 images (and the fixture's own set) × 30 s, two images per one-minute attempt.
    for (let s = 50; s <= 130 * 60; s += 50) {
      at(s);
      for (const p of await progressOf(cluster)) {
        seen.add(p.state);
        expect(p.state, `${p.node} at ${s}s: ${p.label}`).not.toBe("failed");
        expect(p.label).not.toMatch(/registry not reachable/);
        if (p.retrying) {
          retried++;
          expect(p.label).toBe("still pulling: the MCO retries");
          expect(p.remedy).toMatch(/^Nothing to do\. .*keeping the images already pulled/);
        }
      }
    }
    expect(retried).toBeGreaterThan(0);
    expect((await progressOf(cluster)).map((p) => p.state)).toEqual(["done", "done", "done"]);
    expect(seen).toEqual(new Set(["pulling", "done"]));
  });

  it("read at the deadline itself, the MCO's requeue message is shown as a retry with its timeout", async () => {
    const { cluster, at } = plantNorth();
    pin(cluster, "worker");
    at(0);
    at(60); // the first attempt's deadline: the next sync is still 5ms away
    const mcn = cluster.store.get(kind(cluster, "MachineConfigNode"), undefined, "ip-10-0-77-201.ec2.internal") as Any;
    expect(mcn.status.pinnedImageSets[0].lastFailedGenerationError).toBe("requeue: prefetching images incomplete after timeout: 1m0s");
    const worker = (await progressOf(cluster)).find((p) => p.node === "ip-10-0-77-201.ec2.internal")!;
    expect(worker).toMatchObject({ state: "pulling", retrying: true, error: "requeue: prefetching images incomplete after timeout: 1m0s" });
    expect(worker.remedy).toMatch(/each prefetch attempt 1 minute/);
  });
});

describe("items 9 and 11, checkNodeAllocatableStorage / checkImagePayloadStorage: Fleetskew's disk verdict is the MCO's", () => {
  const images = prefetchImages(manifest);
  it.each([20, 30, 40, 50, 55, 60, 70, 80, 100].map((g) => [`${g}Gi`, g * GiB] as const))("allocatable %s", (quantity, bytes) => {
    const node = { metadata: { name: "w" }, status: { allocatable: { "ephemeral-storage": quantity } } };
    const set = { metadata: { name: "bundle" }, spec: { pinnedImages: manifest.images.map((i) => ({ name: i.name })) } };
    const mirror = (image: string) => bundle.images.find((i) => i.name === image)?.layers ?? null;
    const mco = checkNodeAllocatableStorage(newDaemonState(), node, set, mirror);
    const fleetskew = checkPrefetchDisk({ name: "w", allocatable: bytes, conditions: [] }, [images]);
    expect(fleetskew.ok).toBe(mco === null);
    if (mco !== null) expect(fleetskew.ok === false && fleetskew.message).toBe(mco);
  });

  it("the whole-size rule refused nodes the MCO accepts (the mismatch this fixes)", () => {
    const node = { metadata: { name: "w" }, status: { allocatable: { "ephemeral-storage": "60Gi" } } };
    const set = { metadata: { name: "bundle" }, spec: { pinnedImages: manifest.images.map((i) => ({ name: i.name })) } };
    const mirror = (image: string) => bundle.images.find((i) => i.name === image)?.layers ?? null;
    expect(checkNodeAllocatableStorage(newDaemonState(), node, set, mirror)).toBeNull();
    expect(diskVerdict(60 * GiB, totalBytes(manifest)).ok).toBe(false);
    expect(checkPrefetchDisk({ name: "w", allocatable: 60 * GiB, conditions: [] }, [images]).ok).toBe(true);
  });
});

describe("item 10, checkNodeReady: the MCO's NotReady and OutOfDisk messages, DiskPressure=Unknown included", () => {
  it.each([
    ["Ready", "Unknown", "waiting", "waiting: node not ready"],
    ["DiskPressure", "Unknown", "failed", "failed: node under disk pressure"],
    ["DiskPressure", "True", "failed", "failed: node under disk pressure"],
  ])("%s=%s", async (type, status, state, label) => {
    const { cluster, at } = plantNorth();
    const name = "ip-10-0-77-201.ec2.internal";
    const info = kind(cluster, "Node");
    const node = cluster.store.get(info, undefined, name) as Any;
    const conditions = (node.status.conditions as Any[]).map((c) => (c.type === type ? { ...c, status } : c));
    cluster.store.replace(info, undefined, name, { ...node, status: { ...node.status, conditions } } as never, "status");
    pin(cluster, "worker");
    at(0);
    const mcn = cluster.store.get(kind(cluster, "MachineConfigNode"), undefined, name) as Any;
    const word = type === "Ready" ? "NotReady" : "OutOfDisk";
    expect(mcn.status.pinnedImageSets[0].lastFailedGenerationError).toBe(`node ${name} is reporting ${word}=${status}`);
    expect((await progressOf(cluster)).find((p) => p.node === name)).toMatchObject({ state, label });
  });
});
