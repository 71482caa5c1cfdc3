import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evaluateReadiness } from "../domain/readiness";
import type { ClusterSnapshot } from "../domain/snapshot";
import { ClusterClient } from "../kube/client";
import { readClusterObjects, readOSImageStream } from "../kube/readers";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { osStreams423Objects } from "../simulator/scenarios/osStreams";
import { prodEast422Objects, prodEastObjects } from "../simulator/scenarios/prodEast";
import { findClusterSummary } from "../store/clusters";
import { findClusterState } from "../store/history";
import { makeAllDue } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters, simulatorCredentials, testCollectorOptions } from "../testing/fleet";
import { Collector, judgeRead } from "./collector";
import { normalizeSnapshot } from "./normalize";

/**
 * OS image streams through the real client and the real collector against the simulator over HTTPS
 * (docs/openshift.md §25.1): a 4.23 cluster with a RHEL 10 worker pool and a custom pool that inherits
 * it while a ContainerRuntimeConfig makes it run runc; a 4.22 TechPreview cluster (v1alpha1); a 4.19
 * cluster that does not serve the kind; a token that may not read it.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let fleet: Fleet;
let sim: SimulatorServer;

beforeAll(async () => {
  fleet = new Fleet();
  fleet.add({ name: "streams-423", ocpVersion: "4.23.1", token: "s-token", readOnlyToken: "s-reader", objects: osStreams423Objects });
  fleet.add({
    name: "preview-422",
    ocpVersion: "4.22.3",
    token: "p-token",
    readOnlyToken: "p-reader",
    featureSet: "TechPreviewNoUpgrade",
    objects: prodEast422Objects,
  });
  fleet.add({ name: "old-419", ocpVersion: "4.19.10", token: "o-token", readOnlyToken: "o-reader", objects: prodEastObjects });
  fleet.add({
    name: "no-streams-grant",
    ocpVersion: "4.23.1",
    token: "n-token",
    readOnlyToken: "n-reader",
    forbidden: [{ verb: "get", resource: "osimagestreams", group: "machineconfiguration.openshift.io" }],
    objects: osStreams423Objects,
  });
  sim = await startSimulator(fleet);
  await registerSimulatedClusters(sim, fleet.list());
});
afterAll(() => sim.close());

const client = (name: string) =>
  new ClusterClient(simulatorCredentials(sim, fleet.get(name)!), { timeoutMs: 5_000, retries: 0, retryDelayMs: 0 });
const pool = (s: ClusterSnapshot, name: string) => s.pools.find((p) => p.name === name)!;

describe("reading OS image streams", () => {
  it("reads OSImageStream v1 at 4.23 and v1alpha1 on a 4.22 TechPreview cluster; a 4.19 cluster does not serve it", async () => {
    const v1 = await readOSImageStream(client("streams-423"));
    expect(v1.status).toBe("ok");
    if (v1.status === "ok") {
      expect(v1.value.apiVersion).toBe("machineconfiguration.openshift.io/v1");
      expect(v1.value.status?.defaultStream).toBe("rhel-9");
      expect(v1.value.status?.availableStreams?.map((s) => s?.name)).toEqual(["rhel-10", "rhel-9"]);
    }
    const alpha = await readOSImageStream(client("preview-422"));
    expect(alpha.status === "ok" && alpha.value.apiVersion).toBe("machineconfiguration.openshift.io/v1alpha1");
    expect(await readOSImageStream(client("old-419"))).toMatchObject({ status: "not-available", missing: "kind" });
  });

  it("the snapshot says which stream each pool runs, and finds runc in the inheriting custom pool's rendered config", async () => {
    const objects = await readClusterObjects(client("streams-423"));
    expect(judgeRead(objects)).toBeNull();
    const s = normalizeSnapshot(objects);
    expect(s.osImageStream).toMatchObject({ status: "ok", specDefault: "rhel-9", statusDefault: "rhel-9" });
    expect(pool(s, "worker").osImageStream).toEqual({ spec: "rhel-10", status: "rhel-10", effective: { name: "rhel-10", source: "pool" } });
    expect(pool(s, "infra").osImageStream).toEqual({ spec: null, status: "rhel-9", effective: { name: "rhel-10", source: "worker" } });
    expect(pool(s, "master").osImageStream?.effective).toEqual({ name: "rhel-9", source: "cluster-default" });
    expect(pool(s, "infra").renderedCrio).toMatchObject({ defaultRuntime: "runc", error: null, osImageOverride: null });
    expect(pool(s, "worker").renderedCrio).toMatchObject({ defaultRuntime: null, error: null });
    const check = evaluateReadiness(s, "4.23.2").checks.find((c) => c.id === "os-stream-runc")!;
    expect(check.status).toBe("fail");
    expect(check.detail).toContain("MachineConfigPool infra targets a RHEL 10 OS image where runc is not available.");
  });

  it("a 4.19 cluster: no OSImageStream, pools on the built-in rhel-9, and the sweep is good", async () => {
    const objects = await readClusterObjects(client("old-419"));
    expect(judgeRead(objects)).toBeNull();
    const s = normalizeSnapshot(objects);
    expect(s.osImageStream).toEqual({ status: "not-served" });
    expect(pool(s, "worker").osImageStream).toEqual({ spec: null, status: null, effective: { name: "rhel-9", source: "builtin" } });
    expect(s.problems.filter((p) => p.part === "OSImageStream")).toEqual([]);
    // Its template MachineConfigs carry osImageURL but were generated by a controller: no override.
    expect(pool(s, "worker").renderedCrio).toMatchObject({ defaultRuntime: null, error: null, osImageOverride: null });
    expect(evaluateReadiness(s, "4.23.1").checks.find((c) => c.id === "os-stream-runc")!.status).toBe("pass");
  });

  it("a token that may not read OSImageStream: a problem, not a failed read, and the check is unknown", async () => {
    const objects = await readClusterObjects(client("no-streams-grant"));
    expect(judgeRead(objects)).toBeNull();
    const s = normalizeSnapshot(objects);
    expect(s.osImageStream?.status).toBe("unreadable");
    expect(s.problems).toContainEqual(expect.objectContaining({ part: "OSImageStream", kind: "error" }));
    // The worker names its stream; master hangs on the default, which cannot be told.
    expect(pool(s, "master").osImageStream?.effective).toBeNull();
    expect(evaluateReadiness(s, "4.23.2").checks.find((c) => c.id === "os-stream-runc")!.status).not.toBe("pass");
  });

  it("the collector sweeps all four, and stores the streams and the failing check", async () => {
    await makeAllDue();
    const results = await new Collector(testCollectorOptions("streams")).runOnce();
    expect(results.map((r) => [r.cluster, r.outcome]).sort()).toEqual([
      ["no-streams-grant", "ok"],
      ["old-419", "ok"],
      ["preview-422", "ok"],
      ["streams-423", "ok"],
    ]);
    const state = await findClusterState((await findClusterSummary("streams-423"))!.id);
    const s = state!.snapshot!;
    expect(pool(s, "infra").osImageStream?.effective).toEqual({ name: "rhel-10", source: "worker" });
    expect(pool(s, "infra").renderedCrio?.defaultRuntime).toBe("runc");
    const old = (await findClusterState((await findClusterSummary("old-419"))!.id))!.snapshot!;
    expect(old.osImageStream).toEqual({ status: "not-served" });
  });
});
