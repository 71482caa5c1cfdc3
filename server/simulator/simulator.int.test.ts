import { readFileSync } from "node:fs";
import path from "node:path";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Fleet } from "./cluster";
import type { SimulatorServer } from "./http";
import { rawRequest, startTestSimulator } from "./testing";

/** The real Kubernetes client against the simulator over HTTP. */
let fleet: Fleet;
let sim: SimulatorServer;

beforeAll(async () => ({ fleet, sim } = await startTestSimulator()));
afterAll(() => sim.close());

function config(cluster: string, token: string | undefined = `${cluster}-token`): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: cluster, server: `${sim.url}/clusters/${cluster}`, caData: Buffer.from(sim.ca).toString("base64") }],
    users: [{ name: "u", ...(token ? { token } : {}) }],
    contexts: [{ name: cluster, cluster, user: "u" }],
    currentContext: cluster,
  });
  return kc;
}

const fixture = (file: string) => JSON.parse(readFileSync(path.join(__dirname, "fixtures/prod-east", file), "utf8"));
const mergePatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
const jsonPatch = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.JsonPatch);

async function apiError(promise: Promise<unknown>): Promise<{ code: number; body: { reason?: string; message?: string } }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; body: string | object };
    return { code: e.code, body: typeof e.body === "string" ? JSON.parse(e.body) : e.body };
  }
  throw new Error("expected the request to fail");
}

describe("discovery", () => {
  it("serves /version with the Kubernetes version of the OpenShift release", async () => {
    const version = await config("prod-east").makeApiClient(k8s.VersionApi).getCode();
    expect(version).toMatchObject({ major: "1", minor: "32" });
    expect((await config("prod-east-422").makeApiClient(k8s.VersionApi).getCode()).minor).toBe("35");
  });

  it("lists API groups, and serves MachineConfigNode only from 4.19", async () => {
    const groups = await config("prod-east").makeApiClient(k8s.ApisApi).getAPIVersions();
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining(["config.openshift.io", "operator.openshift.io", "machine.openshift.io", "machineconfiguration.openshift.io"]),
    );
    const modern = await config("prod-east")
      .makeApiClient(k8s.CustomObjectsApi)
      .getAPIResources({ group: "machineconfiguration.openshift.io", version: "v1" });
    expect(modern.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining(["machineconfignodes", "pinnedimagesets", "machineconfigpools/status"]),
    );
    const legacy = await config("legacy")
      .makeApiClient(k8s.CustomObjectsApi)
      .getAPIResources({ group: "machineconfiguration.openshift.io", version: "v1" });
    expect(legacy.resources.map((r) => r.name)).not.toContain("machineconfignodes");
    const missing = await apiError(
      config("legacy")
        .makeApiClient(k8s.CustomObjectsApi)
        .listClusterCustomObject({ group: "machineconfiguration.openshift.io", version: "v1", plural: "machineconfignodes" }),
    );
    expect(missing.code).toBe(404);
  });
});

describe("reading", () => {
  it("serves the fixture objects unchanged", async () => {
    const api = config("prod-east").makeApiClient(k8s.CustomObjectsApi);
    const mc = await api.getClusterCustomObject({
      group: "operator.openshift.io",
      version: "v1",
      plural: "machineconfigurations",
      name: "cluster",
    });
    expect(mc).toEqual(fixture("machineconfiguration.json"));
    const core = config("prod-east").makeApiClient(k8s.CoreV1Api);
    const cm = await core.readNamespacedConfigMap({ name: "coreos-bootimages", namespace: "openshift-machine-config-operator" });
    expect(cm.data).toEqual(fixture("configmap-coreos-bootimages.json").data);
  });

  it("lists through the generic object client, which resolves kinds by discovery", async () => {
    const client = k8s.KubernetesObjectApi.makeApiClient(config("prod-east"));
    const list = await client.list("machine.openshift.io/v1beta1", "MachineSet", "openshift-machine-api");
    expect(list.items.map((m) => m.metadata?.name)).toEqual(
      fixture("machinesets.json")
        .items.map((m: { metadata: { name: string } }) => m.metadata.name)
        .sort(),
    );
  });

  it("filters by label selector and pages with limit/continue", async () => {
    const api = config("prod-east").makeApiClient(k8s.CustomObjectsApi);
    const args = { group: "machine.openshift.io", version: "v1beta1", namespace: "openshift-machine-api", plural: "machinesets" };
    const managed = await api.listNamespacedCustomObject({ ...args, labelSelector: "bootimages.example.com/managed=true" });
    expect(managed.items.map((m: { metadata: { name: string } }) => m.metadata.name)).toEqual(["prod-east-7xk2p-infra-us-east-1a"]);
    const unmanaged = await api.listNamespacedCustomObject({ ...args, labelSelector: "!bootimages.example.com/managed" });
    expect(unmanaged.items).toHaveLength(3);

    const first = await api.listNamespacedCustomObject({ ...args, limit: 3 });
    expect(first.items).toHaveLength(3);
    expect(first.metadata.remainingItemCount).toBe(1);
    const second = await api.listNamespacedCustomObject({
      ...args,
      limit: 3,
      _continue: first.metadata._continue ?? first.metadata.continue,
    });
    expect(second.items).toHaveLength(1);
    expect(second.metadata.continue).toBeUndefined();
    const names = [...first.items, ...second.items].map((m: { metadata: { name: string } }) => m.metadata.name);
    expect(new Set(names).size).toBe(4);
  });
});

describe("writing", () => {
  const mcArgs = { group: "operator.openshift.io", version: "v1", plural: "machineconfigurations", name: "cluster" };

  it("answers 409 to a patch carrying a stale resourceVersion, and applies one with the current", async () => {
    const api = config("prod-east-422").makeApiClient(k8s.CustomObjectsApi);
    const current = await api.getClusterCustomObject(mcArgs);
    const body = { metadata: { resourceVersion: current.metadata.resourceVersion }, spec: { bootImageSkewEnforcement: { mode: "None" } } };
    const patched = await api.patchClusterCustomObject({ ...mcArgs, body }, mergePatch);
    expect(patched.spec.bootImageSkewEnforcement).toEqual({ mode: "None" });
    expect(Number(patched.metadata.resourceVersion)).toBeGreaterThan(Number(current.metadata.resourceVersion));
    expect(patched.metadata.generation).toBe(current.metadata.generation + 1);

    const stale = await apiError(api.patchClusterCustomObject({ ...mcArgs, body }, mergePatch));
    expect(stale.code).toBe(409);
    expect(stale.body.reason).toBe("Conflict");
    expect(stale.body.message).toBe(
      'Operation cannot be fulfilled on machineconfigurations.operator.openshift.io "cluster": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it("applies JSON patches and rejects a failing test operation", async () => {
    const api = config("prod-east-422").makeApiClient(k8s.CustomObjectsApi);
    const ok = await api.patchClusterCustomObject(
      { ...mcArgs, body: [{ op: "replace", path: "/spec/logLevel", value: "Debug" }] },
      jsonPatch,
    );
    expect(ok.spec.logLevel).toBe("Debug");
    const failed = await apiError(
      api.patchClusterCustomObject({ ...mcArgs, body: [{ op: "test", path: "/spec/logLevel", value: "Normal" }] }, jsonPatch),
    );
    expect(failed.code).toBe(422);
  });

  it("keeps status out of main-resource writes and spec out of status writes", async () => {
    const api = config("prod-east-422").makeApiClient(k8s.CustomObjectsApi);
    const before = await api.getClusterCustomObject(mcArgs);
    const main = await api.patchClusterCustomObject({ ...mcArgs, body: { status: { observedGeneration: 999 } } }, mergePatch);
    expect(main.status.observedGeneration).toBe(before.status.observedGeneration);
    const status = await api.patchClusterCustomObjectStatus(
      { ...mcArgs, body: { status: { observedGeneration: 999 }, spec: { logLevel: "Trace" } } },
      mergePatch,
    );
    expect(status.status.observedGeneration).toBe(999);
    expect(status.spec.logLevel).toBe(before.spec.logLevel);
  });

  it("drops fields a 4.19 cluster does not have, with a warning, as a CRD schema would", async () => {
    const api = config("prod-east").makeApiClient(k8s.CustomObjectsApi);
    const patched = await api.patchClusterCustomObject(
      { ...mcArgs, body: { spec: { bootImageSkewEnforcement: { mode: "None" } } } },
      mergePatch,
    );
    expect(patched.spec.bootImageSkewEnforcement).toBeUndefined();
    const response = await rawRequest(sim, "/clusters/prod-east/apis/operator.openshift.io/v1/machineconfigurations/cluster", {
      method: "PATCH",
      headers: { authorization: "Bearer prod-east-token", "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { bootImageSkewEnforcement: { mode: "None" } } }),
    });
    expect(response.headers.warning).toBe('299 - "unknown field \\"spec.bootImageSkewEnforcement\\""');
  });

  it("creates and deletes, refusing a duplicate", async () => {
    const api = config("prod-east").makeApiClient(k8s.CustomObjectsApi);
    const args = { group: "machineconfiguration.openshift.io", version: "v1", plural: "pinnedimagesets" };
    const body = {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "PinnedImageSet",
      metadata: { name: "test-pins", labels: { "machineconfiguration.openshift.io/role": "worker" } },
      spec: { pinnedImages: [{ name: `quay.io/example/app@sha256:${"a".repeat(64)}` }] },
    };
    const created = await api.createClusterCustomObject({ ...args, body });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await apiError(api.createClusterCustomObject({ ...args, body }))).body.reason).toBe("AlreadyExists");
    await api.deleteClusterCustomObject({ ...args, name: "test-pins" });
    expect((await apiError(api.getClusterCustomObject({ ...args, name: "test-pins" }))).code).toBe(404);
  });
});

describe("authentication and authorisation", () => {
  it("answers 401 without a valid token", async () => {
    const api = (token?: string) => config("prod-east", token).makeApiClient(k8s.CoreV1Api);
    expect((await apiError(api("").listNode())).code).toBe(401);
    expect((await apiError(api("legacy-token").listNode())).code).toBe(401);
  });

  it("lets a read-only token read and answers 403 on writes, naming verb and resource", async () => {
    const api = config("prod-east", "prod-east-reader").makeApiClient(k8s.CustomObjectsApi);
    await expect(
      api.getClusterCustomObject({ group: "operator.openshift.io", version: "v1", plural: "machineconfigurations", name: "cluster" }),
    ).resolves.toBeTruthy();
    const refused = await apiError(
      api.patchClusterCustomObject(
        { group: "operator.openshift.io", version: "v1", plural: "machineconfigurations", name: "cluster", body: { spec: {} } },
        mergePatch,
      ),
    );
    expect(refused.code).toBe(403);
    expect(refused.body.message).toBe(
      'machineconfigurations.operator.openshift.io "cluster" is forbidden: User "system:serviceaccount:fleetskew:fleetskew-reader" cannot patch resource "machineconfigurations" in API group "operator.openshift.io" at the cluster scope',
    );
  });

  it("refuses what the cluster's RBAC does not allow", async () => {
    const refused = await apiError(config("legacy").makeApiClient(k8s.CoreV1Api).listNode());
    expect(refused.code).toBe(403);
    expect(refused.body.message).toContain('cannot list resource "nodes" in API group "" at the cluster scope');
  });
});

describe("watch", () => {
  it("streams the current objects, then changes", async () => {
    const kc = config("prod-east");
    const events: { type: string; name: string }[] = [];
    const watch = new k8s.Watch(kc);
    const request = await watch.watch(
      "/apis/machineconfiguration.openshift.io/v1/machineconfigpools",
      {},
      (type, obj) => events.push({ type, name: obj.metadata.name }),
      () => undefined,
    );
    await expect.poll(() => events.length).toBe(3);
    await kc.makeApiClient(k8s.CustomObjectsApi).patchClusterCustomObject(
      {
        group: "machineconfiguration.openshift.io",
        version: "v1",
        plural: "machineconfigpools",
        name: "worker",
        body: { spec: { paused: true } },
      },
      mergePatch,
    );
    await expect.poll(() => events.at(-1)).toEqual({ type: "MODIFIED", name: "worker" });
    request.abort();
  });
});

describe("fault modes", () => {
  const read = (cluster: string) =>
    config(cluster)
      .makeApiClient(k8s.CustomObjectsApi)
      .getClusterCustomObject({ group: "config.openshift.io", version: "v1", plural: "clusterversions", name: "version" });
  const withFaults = async (faults: Parameters<Fleet["setFaults"]>[1], body: () => Promise<void>) => {
    fleet.setFaults("legacy", faults);
    try {
      await body();
    } finally {
      fleet.setFaults("legacy", undefined);
    }
  };

  it("answers 5xx", () =>
    withFaults({ errorEvery: 1 }, async () => {
      expect((await apiError(read("legacy"))).code).toBe(503);
      await expect(read("prod-east")).resolves.toBeTruthy(); // other clusters are unaffected
    }));

  it("sends malformed bodies: 200 and JSON cut in half, which the client cannot parse", () =>
    withFaults({ malformedEvery: 1 }, async () => {
      const path = "/clusters/legacy/apis/config.openshift.io/v1/clusterversions/version";
      const answer = await rawRequest(sim, path, { headers: { authorization: "Bearer legacy-token" } });
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe("application/json");
      expect(answer.body.startsWith('{"apiVersion":"config.openshift.io/v1"')).toBe(true);
      expect(() => JSON.parse(answer.body)).toThrow(SyntaxError);
      await expect(read("legacy")).rejects.toThrow(/JSON/);
    }));

  it("adds latency", () =>
    withFaults({ latencyMs: 300 }, async () => {
      const started = Date.now();
      await read("legacy");
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    }));

  it("never answers when timing out", () =>
    withFaults({ timeout: true }, async () => {
      const answer = rawRequest(sim, "/clusters/legacy/apis/config.openshift.io/v1/clusterversions/version", {
        headers: { authorization: "Bearer legacy-token" },
        timeoutMs: 500,
      });
      await expect(answer).rejects.toThrow("timeout after 500 ms");
    }));

  it("flaps between reachable and unreachable", () =>
    withFaults({ flapPeriodMs: 200 }, async () => {
      const outcomes = new Set<string>();
      for (let i = 0; i < 12 && outcomes.size < 2; i++) {
        outcomes.add(
          await read("legacy").then(
            () => "ok",
            () => "down",
          ),
        );
        await new Promise((r) => setTimeout(r, 70));
      }
      expect([...outcomes].sort()).toEqual(["down", "ok"]);
    }));
});
