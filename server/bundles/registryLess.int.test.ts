import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../auth/actor";
import { testActor } from "../testing/actors";
import { manifestDigest, type BundleManifest } from "../domain/bundleManifest";
import { ClusterClient } from "../kube/client";
import { KINDS } from "../kube/kinds";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { REGISTRY_LESS_CLUSTER, registryLessSpec } from "../simulator/scenarios/registryLess";
import { listApplications } from "../store/bundles";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials } from "../testing/fleet";
import { applyBundle } from "./apply";
import { uploadBundle, vetBundle } from "./bundles";
import { precheck } from "./precheck";

/**
 * A bundle for a release a registry-less cluster cannot pull is refused before anything is
 * written: real Postgres, the simulated edge-registryless cluster over HTTPS (it serves 4.22.2).
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let sim: SimulatorServer;
let fleet: Fleet;
let tech: Actor;
let approver: Actor;
beforeAll(async () => {
  fleet = new Fleet();
  fleet.add(registryLessSpec({ token: "edge-token", readOnlyToken: "edge-reader" }));
  sim = await startSimulator(fleet);
  await registerSimulatedClusters(sim, fleet.list());
  tech = await testActor("tom", "technician");
  approver = await testActor("alice", "approver");
});
afterAll(() => sim.close());

function manifest(version: string, digest: string): BundleManifest {
  const image = `quay.io/openshift-release-dev/ocp-release@sha256:${digest}`;
  return {
    apiVersion: "fleetskew.io/v1",
    kind: "UpgradeBundle",
    release: { version, image },
    images: [{ name: image, sizeBytes: 1024 ** 3 }],
    createdAt: "2026-11-01T09:00:00Z",
  };
}
async function upload(m: BundleManifest) {
  const bytes = new TextEncoder().encode(JSON.stringify(m, null, 2));
  await vetBundle({ digest: manifestDigest(bytes), note: `release ${m.release.version}` }, approver);
  return uploadBundle(bytes, tech);
}

describe("bundles on a registry-less cluster", () => {
  it("a bundle for 4.22.3, which the cluster does not serve, fails its precheck and is not applied", async () => {
    const bundle = await upload(manifest("4.22.3", "3".repeat(64)));
    const result = await precheck(bundle.digest, REGISTRY_LESS_CLUSTER);
    expect(result.canApply).toBe(false);
    expect(result.checks.find((c) => c.id === "registry-less-release")).toMatchObject({
      status: "fail",
      title: "This cluster cannot pull release 4.22.3",
      items: ["ocp-release-bundle-4.22.2-x86_64"],
    });
    await expect(applyBundle({ digest: bundle.digest, cluster: REGISTRY_LESS_CLUSTER, confirmedWarnings: [] }, tech)).rejects.toMatchObject(
      {
        status: 409,
      },
    );
    const client = new ClusterClient(simulatorCredentials(sim, fleet.get(REGISTRY_LESS_CLUSTER)!));
    expect(await client.list(KINDS.pinnedImageSet)).toEqual([]);
    expect(await listApplications()).toEqual([]);
  });

  it("a bundle of the release it serves (same digest) is served, but degraded while master-0's registry is down", async () => {
    const client = new ClusterClient(simulatorCredentials(sim, fleet.get(REGISTRY_LESS_CLUSTER)!));
    const cv = (await client.get(KINDS.clusterVersion, "version")) as { status: { desired: { image: string } } };
    const digest = cv.status.desired.image.split("@sha256:")[1]!;
    const bundle = await upload(manifest("4.22.2", digest));
    const check = (await precheck(bundle.digest, REGISTRY_LESS_CLUSTER)).checks.find((c) => c.id === "registry-less-release");
    expect(check).toMatchObject({ status: "warn", title: "Release 4.22.2 is served, but degraded" });
    expect(check?.detail).toContain("SomeRegistriesUnavailable");
  });
});
