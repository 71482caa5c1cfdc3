import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { Actor } from "../auth/actor";
import { testActor } from "../testing/actors";
import { manifestDigest, type BundleManifest } from "../domain/bundleManifest";
import { ClusterClient } from "../kube/client";
import { KINDS } from "../kube/kinds";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { Reconciler } from "../simulator/reconciler";
import { startTestSimulator } from "../simulator/testing";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials } from "../testing/fleet";
import { applyBundle } from "./apply";
import { uploadBundle, vetBundle } from "./bundles";
import { precheck } from "./precheck";

/**
 * What the bundle tests share: a migrated database, the simulated fleet registered in it (its
 * reconciler on a clock the tests move), three people, and the steps a technician takes. The
 * bindings are live: `fleet`, `sim` and the actors are set once the hooks have run.
 */
export let fleet: Fleet;
export let sim: SimulatorServer;
export let reconciler: Reconciler;

/** Registers the hooks; call it once at the top of a test file. */
export function setUpBundleTestbed(): void {
  process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
  // A write the simulator leaves unanswered fails after this long (the per-request timeout of every cluster client).
  process.env.FLEETSKEW_KUBE_TIMEOUT_MS = "3000";
  useMigratedDatabase();
  beforeAll(async () => {
    ({ fleet, sim } = await startTestSimulator());
    reconciler = new Reconciler(fleet, clock);
    await registerSimulatedClusters(sim, fleet.list());
    admin = await testActor("ada", "admin");
    tech = await testActor("tom", "technician");
    approver = await testActor("alice", "approver");
  });
  afterAll(() => sim.close());
}

export const clock = { t: Date.parse("2026-11-20T08:00:00Z"), now: () => new Date(clock.t) };
export const advance = (minutes: number) => {
  clock.t += minutes * 60_000;
  for (const name of ["prod-east", "prod-east-422"]) reconciler.reconcile(fleet.get(name)!);
};
export let admin: Actor, tech: Actor, approver: Actor;

export const digestOf = (n: string) => n.repeat(64).slice(0, 64);
/** A manifest of `images` images of `bytes` each, the release image first (a manifest lists it with the others). */
export function manifest(release: string, images = 3, bytes = 2 * 1024 ** 3): BundleManifest {
  const releaseImage = `quay.io/openshift-release-dev/ocp-release@sha256:${digestOf(release.replace(/\./g, ""))}`;
  return {
    apiVersion: "fleetskew.io/v1",
    kind: "UpgradeBundle",
    release: { version: release, image: releaseImage },
    images: [
      { name: releaseImage, sizeBytes: bytes },
      ...Array.from({ length: images - 1 }, (_, i) => ({
        name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${digestOf(String(i))}`,
        sizeBytes: bytes,
      })),
    ],
    createdAt: "2026-11-01T09:00:00Z",
  };
}
export const bytesOf = (m: unknown) => new TextEncoder().encode(JSON.stringify(m, null, 2));

export async function vettedUpload(m: BundleManifest) {
  const bytes = bytesOf(m);
  await vetBundle({ digest: manifestDigest(bytes), note: `release ${m.release.version} mirrored on 2026-11-01` }, approver);
  return uploadBundle(bytes, tech);
}

export const client = (name: string) => new ClusterClient(simulatorCredentials(sim, fleet.get(name)!));
/** The keys of the warnings a technician reads on the precheck page now. */
export const warningsNow = async (digest: string, cluster: string) =>
  (await precheck(digest, cluster)).checks.filter((c) => c.status === "warn").map((c) => c.key);
/** Reads the prechecks, confirms every warning shown, applies. */
export const applyConfirmed = async (digest: string, cluster: string, actor: Actor) =>
  applyBundle({ digest, cluster, confirmedWarnings: await warningsNow(digest, cluster) }, actor);
/** A vetted bundle applied to a cluster, with every node's pull finished (simulated time moved on). */
export async function preloaded(version: string, cluster: string) {
  const bundle = await vettedUpload(manifest(version));
  const { application } = await applyConfirmed(bundle.digest, cluster, tech);
  advance(1);
  advance(60);
  return { bundle, application };
}
export const setsOn = async (name: string) =>
  ((await client(name).list(KINDS.pinnedImageSet)) as { metadata: { name: string; labels?: Record<string, string> } }[]).map(
    (s) => s.metadata,
  );

/** Sets a node's allocatable ephemeral storage, as a node whose disk filled up reports it. */
export function setNodeDisk(cluster: string, node: string, quantity: string) {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "v1", kind: "Node" })!;
  const current = c.store.get(info, undefined, node) as { status: { allocatable: Record<string, string> } };
  const status = { ...current.status, allocatable: { ...current.status.allocatable, "ephemeral-storage": quantity } };
  c.store.replace(info, undefined, node, { ...current, status } as never, "status");
}

/** Sets one of a node's conditions (DiskPressure, Ready, …) as its kubelet reports it. */
export function setNodeCondition(cluster: string, node: string, type: string, status: "True" | "False") {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "v1", kind: "Node" })!;
  const current = c.store.get(info, undefined, node) as { status: { conditions: { type: string; status: string }[] } };
  const conditions = current.status.conditions.map((x) => (x.type === type ? { ...x, status } : x));
  c.store.replace(info, undefined, node, { ...current, status: { ...current.status, conditions } } as never, "status");
}
