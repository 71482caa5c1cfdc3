import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeSnapshot } from "../collector/normalize";
import { evaluateReadiness } from "../domain/readiness";
import { registryLessState, servableReleases } from "../domain/registryLess";
import { Fleet } from "../simulator/cluster";
import { startSimulator, type SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { REGISTRY_LESS_BUNDLE, REGISTRY_LESS_CLUSTER, registryLessSpec } from "../simulator/scenarios/registryLess";
import { testFleetSpecs } from "../simulator/testing";
import { ClusterClient } from "./client";
import { parseKubeconfig, type ClusterCredentials } from "./credentials";
import { readClusterObjects, readInternalReleaseImage, readMachineConfigNodes } from "./readers";

/**
 * The InternalReleaseImage readers against the simulator over HTTPS: a registry-less 4.22 cluster,
 * a 4.22 cluster without one (the object is missing) and a 4.16 one (the kind is not served).
 */
let sim: SimulatorServer;
let creds: (name: string) => ClusterCredentials;

beforeAll(async () => {
  const fleet = new Fleet();
  for (const spec of testFleetSpecs()) fleet.add(spec);
  fleet.add(registryLessSpec({ token: "edge-token", readOnlyToken: "edge-reader" }));
  sim = await startSimulator(fleet);
  const kubeconfig = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  creds = (name) => kubeconfig.credentialsFor(name);
});
afterAll(() => sim.close());

const client = (name: string) => new ClusterClient(creds(name), { timeoutMs: 5_000, retries: 0, retryDelayMs: 0 });

describe("readInternalReleaseImage", () => {
  it("reads the singleton of a registry-less cluster, typed", async () => {
    const r = await readInternalReleaseImage(client(REGISTRY_LESS_CLUSTER));
    expect(r.status).toBe("ok");
    if (r.status !== "ok") return;
    expect(r.value.metadata.name).toBe("cluster");
    expect(r.value.spec?.releases?.map((x) => x?.name)).toEqual([REGISTRY_LESS_BUNDLE]);
    expect(r.value.status?.releases?.[0]?.image).toMatch(
      /^api-int\.edge-registryless\.example\.com:22625\/openshift\/release-images@sha256:[a-f0-9]{64}$/,
    );
    expect(r.value.status?.conditions?.[0]).toMatchObject({ type: "Degraded", status: "True", reason: "SomeRegistriesUnavailable" });
  });

  it("a 4.22 cluster without one: not available (the object), never an error", async () => {
    expect(await readInternalReleaseImage(client("prod-east-422"))).toMatchObject({ status: "not-available", missing: "object" });
  });

  it("a cluster that does not serve the kind: not available (the kind)", async () => {
    expect(await readInternalReleaseImage(client("legacy"))).toMatchObject({ status: "not-available", missing: "kind" });
  });

  it("reads each control-plane node's status.internalReleaseImage", async () => {
    const r = await readMachineConfigNodes(client(REGISTRY_LESS_CLUSTER));
    expect(r.status).toBe("ok");
    if (r.status !== "ok") return;
    const masters = r.items.filter((m) => m.status?.internalReleaseImage?.releases?.length);
    expect(masters.map((m) => m.metadata.name)).toEqual([0, 1, 2].map((i) => `${REGISTRY_LESS_CLUSTER}-kq7dz-master-${i}`));
    expect(masters[0]!.status?.internalReleaseImage?.releases?.[0]?.image).toMatch(/^localhost:22625\//);
  });
});

describe("a registry-less cluster read, normalized and judged", () => {
  it("serves its install release, degraded, and names master-0's unreachable registry", async () => {
    const snapshot = normalizeSnapshot(await readClusterObjects(client(REGISTRY_LESS_CLUSTER)));
    const state = registryLessState(snapshot)!;
    expect(servableReleases(state).map((r) => [r.name, r.version, r.state])).toEqual([[REGISTRY_LESS_BUNDLE, "4.22.2", "degraded"]]);
    expect(state.nodes.map((n) => [n.node.replace(/^.*-(master-\d)$/, "$1"), n.state, n.reason])).toEqual([
      ["master-0", "degraded", "RegistryUnreachable"],
      ["master-1", "available", "AllReleasesAvailable"],
      ["master-2", "available", "AllReleasesAvailable"],
    ]);
    const check = evaluateReadiness(snapshot, "4.23.1").checks.find((c) => c.id === "registry-less")!;
    expect(check.status).toBe("fail");
    expect(check.detail).toContain("cannot serve 4.23.1");
    expect(check.detail).toContain("RegistryUnreachable");
  });

  it("a cluster with a registry has no internalReleaseImage in its snapshot, and no problem for it", async () => {
    const snapshot = normalizeSnapshot(await readClusterObjects(client("prod-east-422")));
    expect(snapshot.internalReleaseImage).toBeNull();
    expect(snapshot.problems.filter((p) => p.part === "InternalReleaseImage")).toEqual([]);
  });
});
