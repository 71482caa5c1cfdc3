import type http2 from "node:http2";
import type tls from "node:tls";
import { parseConnectTo } from "./connectTo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { startTestSimulator } from "../simulator/testing";
import { ClusterClient, KubeError } from "./client";
import { testConnection } from "./connection";
import { parseKubeconfig, type ClusterCredentials } from "./credentials";
import { KINDS } from "./kinds";
import { readAlerts } from "./alertsReader";
import { readClusterObjects, readMachineSets } from "./readers";
import {
  createPinnedImageSet,
  deletePinnedImageSet,
  patchWithPrecondition,
  setBootImageSkewEnforcement,
  setDesiredUpdate,
} from "./writers";

let fleet: Fleet;
let sim: SimulatorServer;
let creds: (name: string) => ClusterCredentials;

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  const kubeconfig = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  creds = (name) => kubeconfig.credentialsFor(name);
});
afterAll(() => sim.close());

const fast = { timeoutMs: 400, retries: 1, retryDelayMs: 50 };

describe("testConnection", () => {
  it("reports version, platform and served kinds of a healthy cluster", async () => {
    const cluster = fleet.get("prod-east")!;
    const before = cluster.requestCount;
    const report = await testConnection(creds("prod-east"));
    // A list asks whether it is allowed with one page of one object, not every page of the kind
    // (prod-east has more MachineConfigs than that): /version, discovery, some twenty reads, the querier.
    expect(cluster.requestCount - before).toBeLessThan(40);
    expect(report).toMatchObject({
      reachable: true,
      authenticated: true,
      kubernetesVersion: "v1.32.7",
      openshiftVersion: "4.19.10",
      platform: "AWS",
      forbidden: [],
      problem: null,
    });
    expect(report.served.find((s) => s.kind === "MachineConfigNode")).toEqual({
      kind: "MachineConfigNode",
      groupVersion: "machineconfiguration.openshift.io/v1",
      served: true,
    });
  });

  it("gives up on a cluster that never answers within its timeout: /version and core discovery carry the deadline too", async () => {
    fleet.setFaults("legacy", { timeout: true });
    try {
      const started = Date.now();
      const report = await testConnection(creds("legacy"), { timeoutMs: 400 });
      expect(report).toMatchObject({ reachable: false, authenticated: false, openshiftVersion: null });
      expect(report.problem).toBe("no answer from the cluster for /version in time");
      expect(Date.now() - started).toBeLessThan(2_000);
      // Past /version: core discovery ("v1") is the next read without a deadline of its own.
      const discovery = new ClusterClient(creds("legacy"), { ...fast, retries: 0 }).discovery(["v1"]);
      await expect(discovery).rejects.toMatchObject({ kind: "timeout" });
    } finally {
      fleet.setFaults("legacy", undefined);
    }
  });

  it("names kinds an older cluster lacks and reads it forbids", async () => {
    const report = await testConnection(creds("legacy"));
    expect(report.openshiftVersion).toBe("4.19.10"); // its objects are the fixture's; the API is 4.16's
    expect(
      report.served
        .filter((s) => !s.served)
        .map((s) => s.kind)
        .sort(),
    ).toEqual(["InternalReleaseImage", "MachineConfigNode", "MachineOSBuild", "MachineOSConfig", "OSImageStream", "PinnedImageSet"]);
    expect(report.forbidden).toEqual([
      expect.objectContaining({
        verb: "list",
        resource: "nodes",
        group: "",
        message: expect.stringContaining('cannot list resource "nodes"'),
      }),
    ]);
  });

  it("names the querier's refusal of Fleetskew's user as a missing permission, but not an ingress it cannot reach", async () => {
    const cluster = fleet.get("prod-east")!;
    const routed = { ...fast, connectTo: parseConnectTo(sim.connectTo) };
    try {
      cluster.spec.forbidden = [{ verb: "get", resource: "prometheuses/api", group: "monitoring.coreos.com" }];
      expect((await testConnection(creds("prod-east"), routed)).forbidden).toEqual([
        expect.objectContaining({
          verb: "get",
          resource: "prometheuses/api",
          group: "monitoring.coreos.com",
          namespace: "openshift-monitoring",
          message: expect.stringContaining("Forbidden (user=system:serviceaccount:fleetskew:fleetskew-admin"),
        }),
      ]);
      // The same refusal behind an ingress Fleetskew cannot resolve is not a permission it lacks.
      expect((await testConnection(creds("prod-east"), fast)).forbidden).toEqual([]);
      cluster.spec.forbidden = [{ verb: "get", resource: "routes", group: "route.openshift.io" }];
      expect((await testConnection(creds("prod-east"), routed)).forbidden).toEqual([
        expect.objectContaining({ verb: "get", resource: "routes", group: "route.openshift.io", namespace: "openshift-monitoring" }),
      ]);
    } finally {
      cluster.spec.forbidden = undefined;
    }
  });

  it("says when the credentials are refused", async () => {
    const report = await testConnection({ ...creds("prod-east"), token: "wrong" });
    expect(report).toMatchObject({ reachable: true, authenticated: false });
    expect(report.problem).toMatch(/refused the credentials \(401\)/);
  });

  it("says when the server's certificate is not trusted, and works when verification is explicitly skipped", async () => {
    const untrusted = { ...creds("prod-east"), certificateAuthority: undefined };
    const report = await testConnection(untrusted);
    expect(report.reachable).toBe(false);
    expect(report.problem).toMatch(/certificate is not trusted/);
    expect((await testConnection({ ...untrusted, insecureSkipTlsVerify: true })).openshiftVersion).toBe("4.19.10");
  });

  it("says when nothing answers", async () => {
    const report = await testConnection({ ...creds("prod-east"), server: "https://127.0.0.1:1/clusters/x" }, fast);
    expect(report.reachable).toBe(false);
    expect(report.problem).toMatch(/cannot reach the cluster \(ECONNREFUSED\)/);
  });
});

describe("readers", () => {
  it("read every part of a cluster, and mark kinds an older one does not serve as not available", async () => {
    const modern = await readClusterObjects(new ClusterClient(creds("prod-east")));
    expect(modern.machineSets.status === "ok" && modern.machineSets.items).toHaveLength(4);
    expect(modern.machineConfigNodes.status === "ok" && modern.machineConfigNodes.items).toHaveLength(3);
    expect(modern.bootImages.status === "ok" && modern.bootImages.value.data?.releaseVersion).toBe("4.19.10");
    const legacy = await readClusterObjects(new ClusterClient(creds("legacy")));
    expect(legacy.machineConfigNodes.status).toBe("not-available");
    expect(legacy.clusterVersion.status).toBe("ok");
    expect(legacy.nodes).toMatchObject({ status: "error", error: { kind: "forbidden" } });
  });

  it("read a cluster over one HTTP/2 connection per sweep, the next sweep's resuming the first's TLS session", async () => {
    const connections: { protocol: string | false | null; resumed: boolean }[] = [];
    const seen = (socket: tls.TLSSocket) => connections.push({ protocol: socket.alpnProtocol, resumed: socket.isSessionReused() });
    sim.server.on("secureConnection", seen);
    // What the client lets the server send ahead, per stream: Go's client's 4 MiB, not HTTP/2's 64 KiB.
    const windows: number[] = [];
    const settingsOf = (session: http2.ServerHttp2Session) => session.once("remoteSettings", (s) => windows.push(s.initialWindowSize ?? 0));
    sim.server.on("session", settingsOf);
    const client = new ClusterClient(creds("prod-east"));
    try {
      for (let sweep = 0; sweep < 2; sweep++) {
        client.startRead();
        expect((await readClusterObjects(client)).clusterVersion.status).toBe("ok");
        client.endRead();
      }
    } finally {
      client.close();
      sim.server.off("secureConnection", seen);
      sim.server.off("session", settingsOf);
    }
    expect(windows).toEqual([4 * 1024 * 1024, 4 * 1024 * 1024]);
    // Some twenty reads a sweep, one connection each time; the second without a full handshake.
    expect(connections).toEqual([
      { protocol: "h2", resumed: false },
      { protocol: "h2", resumed: true },
    ]);
  });

  it("close a sweep's connections at its end, the API server's and the Route's, and resume their TLS sessions at the next; a watched cluster keeps both", async () => {
    // The connections this test's clients opened that the server still holds.
    const held = new Set<tls.TLSSocket>();
    const connections: { protocol: string | false | null; resumed: boolean }[] = [];
    const seen = (socket: tls.TLSSocket) => {
      held.add(socket);
      connections.push({ protocol: socket.alpnProtocol, resumed: socket.isSessionReused() });
      socket.once("close", () => held.delete(socket));
    };
    sim.server.on("secureConnection", seen);
    const open = () => held.size;
    const sweep = async (client: ClusterClient) => {
      client.startRead();
      expect((await readClusterObjects(client)).clusterVersion.status).toBe("ok");
      expect((await readAlerts(client)).status).toBe("ok");
      client.endRead();
    };
    const options = { ...fast, timeoutMs: 5_000, connectTo: parseConnectTo(sim.connectTo) };
    const unwatched = new ClusterClient(creds("prod-east"), { ...options, watchClusters: 0 });
    try {
      await sweep(unwatched);
      await expect.poll(open).toBe(0);
      await sweep(unwatched);
      await expect.poll(open).toBe(0);
    } finally {
      unwatched.close();
    }
    // The next sweep's connections, the API server's (HTTP/2) and the Route's (HTTP/1.1), resume the first's TLS sessions.
    expect(connections).toEqual([
      { protocol: "h2", resumed: false },
      { protocol: false, resumed: false },
      { protocol: "h2", resumed: true },
      { protocol: false, resumed: true },
    ]);
    const watched = new ClusterClient(creds("prod-east"), { ...options, watchClusters: 10 });
    try {
      await sweep(watched);
      // The API server's connection (carrying the watches) and the Route's, still open a while later.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(open()).toBe(2);
    } finally {
      watched.close();
    }
    await expect.poll(open).toBe(0);
    sim.server.off("secureConnection", seen);
  });

  it("skip and report one malformed object, keeping the rest", async () => {
    const cluster = fleet.get("legacy")!;
    const info = cluster.kinds.find((k) => k.kind === "MachineSet")!;
    cluster.store.create(info, "openshift-machine-api", {
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "MachineSet",
      metadata: { name: "broken" },
      spec: "not an object",
    });
    const result = await readMachineSets(new ClusterClient(creds("legacy")));
    expect(result.status === "ok" && result.items).toHaveLength(4);
    expect(result.status === "ok" && result.skipped).toEqual([
      { name: "broken", problem: "spec: Invalid input: expected object, received string" },
    ]);
    cluster.store.delete(info, "openshift-machine-api", "broken");
  });

  it("give up on a silent cluster within the configured timeout and retries", async () => {
    fleet.setFaults("legacy", { timeout: true });
    try {
      const started = Date.now();
      const result = await readMachineSets(new ClusterClient(creds("legacy"), fast));
      expect(result).toMatchObject({ status: "error", error: { kind: "timeout" } });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      fleet.setFaults("legacy", undefined);
    }
  });

  it("retry a 5xx and a malformed answer", async () => {
    for (const faults of [{ errorEvery: 2 }, { malformedEvery: 2 }]) {
      fleet.setFaults("legacy", faults);
      try {
        // Every second request fails; with one retry every read gets through.
        for (let i = 0; i < 3; i++) expect((await readMachineSets(new ClusterClient(creds("legacy"), fast))).status).toBe("ok");
        const noRetry = await Promise.all([0, 1].map(() => readMachineSets(new ClusterClient(creds("legacy"), { ...fast, retries: 0 }))));
        expect(noRetry.map((r) => r.status)).toContain("error");
      } finally {
        fleet.setFaults("legacy", undefined);
      }
    }
  });
});

describe("writers", () => {
  const client = () => new ClusterClient(creds("prod-east-422"));
  const images = [`quay.io/example/a@sha256:${"1".repeat(64)}`, `quay.io/example/b@sha256:${"2".repeat(64)}`];

  it("create a PinnedImageSet idempotently and refuse a different one under the same name", async () => {
    expect(
      await createPinnedImageSet(client(), {
        name: "bundle-4-22-4-worker",
        poolLabels: { "machineconfiguration.openshift.io/role": "worker" },
        images,
      }),
    ).toBe("created");
    expect(
      await createPinnedImageSet(client(), {
        name: "bundle-4-22-4-worker",
        poolLabels: { "machineconfiguration.openshift.io/role": "worker" },
        images,
      }),
    ).toBe("unchanged");
    await expect(
      createPinnedImageSet(client(), {
        name: "bundle-4-22-4-worker",
        poolLabels: { "machineconfiguration.openshift.io/role": "worker" },
        images: images.slice(1),
      }),
    ).rejects.toMatchObject({ kind: "conflict" });
    expect(await deletePinnedImageSet(client(), "bundle-4-22-4-worker")).toBe("deleted");
    expect(await deletePinnedImageSet(client(), "bundle-4-22-4-worker")).toBe("absent");
  });

  it("set skew enforcement, replacing the old union member", async () => {
    await setBootImageSkewEnforcement(client(), { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.19.0" } });
    const { object } = await setBootImageSkewEnforcement(client(), {
      mode: "Manual",
      manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" },
    });
    expect((object as { spec: { bootImageSkewEnforcement: unknown } }).spec.bootImageSkewEnforcement).toEqual({
      mode: "Manual",
      manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" },
    });
  });

  it("re-read and retry when the object changes between read and patch, never overwriting blindly", async () => {
    const c = client();
    let calls = 0;
    const { result } = await patchWithPrecondition(c, KINDS.machineConfiguration, "cluster", (current) => {
      calls++;
      if (calls === 1) {
        // Someone else changes the object after we read it.
        fleet
          .get("prod-east-422")!
          .store.replace(
            fleet.get("prod-east-422")!.kindFor({ apiVersion: "operator.openshift.io/v1", kind: "MachineConfiguration" })!,
            undefined,
            "cluster",
            { ...(current as object), metadata: current.metadata, spec: { ...(current.spec as object), logLevel: "Debug" } },
          );
      }
      return { spec: { operatorLogLevel: "Trace" } };
    });
    expect(result).toBe("patched");
    expect(calls).toBe(2);
    const final = (await c.get(KINDS.machineConfiguration, "cluster")) as { spec: Record<string, string> };
    expect([final.spec.logLevel, final.spec.operatorLogLevel]).toEqual(["Debug", "Trace"]);
  });

  it("refuse a change asked for against a value the cluster no longer has; leave a value already there alone", async () => {
    const asked = { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.12.0" } } as const;
    await expect(setBootImageSkewEnforcement(client(), { mode: "None" }, { baseline: asked })).rejects.toMatchObject({
      kind: "conflict",
      message: expect.stringContaining("changed on the cluster since the request was made: it is now Manual, 9.6.20250701-0"),
    });
    const current = { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" } } as const;
    expect((await setBootImageSkewEnforcement(client(), current, { baseline: asked })).result).toBe("unchanged");
  });

  it("start an upgrade once", async () => {
    const update = { version: "4.22.4", image: `quay.io/openshift-release-dev/ocp-release@sha256:${"4".repeat(64)}` };
    expect((await setDesiredUpdate(client(), update)).result).toBe("patched");
    expect((await setDesiredUpdate(client(), update)).result).toBe("unchanged");
  });

  it("turn a read-only token's refusal into a forbidden error", async () => {
    const reader = new ClusterClient({ ...creds("prod-east-422"), token: "prod-east-422-reader" });
    await expect(setDesiredUpdate(reader, { version: "4.22.5", image: "x@sha256:" + "5".repeat(64) })).rejects.toBeInstanceOf(KubeError);
    await expect(setDesiredUpdate(reader, { version: "4.22.5", image: "x@sha256:" + "5".repeat(64) })).rejects.toMatchObject({
      kind: "forbidden",
    });
  });
});
