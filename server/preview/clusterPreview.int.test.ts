import { actorFor } from "../auth/actor";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { POST as previewRoute } from "@/app/api/v1/clusters/[name]/preview/route";
import { POST as fleetRoute } from "@/app/api/v1/preview/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { registerCluster } from "../clusters/registration";
import { Collector } from "../collector/collector";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { startTestSimulator } from "../simulator/testing";
import { listUsers } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { testCollectorOptions } from "../testing/fleet";
import { params, request, signIn } from "../testing/routes";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let sim: SimulatorServer;
let fleet: Fleet;
let cookie: string;

const proposal = (name: string, files: Record<string, string>, role = "worker") =>
  stringify({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, labels: { "machineconfiguration.openshift.io/role": role } },
    spec: {
      config: {
        ignition: { version: "3.5.0" },
        storage: {
          files: Object.entries(files).map(([path, text]) => ({
            path,
            mode: 420,
            overwrite: true,
            contents: { source: `data:,${encodeURIComponent(text)}` },
          })),
        },
      },
    },
  });

async function preview(machineConfig: string, cluster = "prod-east") {
  const res = await previewRoute(
    request(`/api/v1/clusters/${cluster}/preview`, { method: "POST", cookie, body: { machineConfig } }),
    params({ name: cluster }),
  );
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  const started = await startTestSimulator();
  sim = started.sim;
  fleet = started.fleet;
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  await registerCluster(
    {
      name: "prod-east",
      labels: {},
      source: { type: "kubeconfig", kubeconfig: kubeconfigFor(started.fleet.list(), sim.url, sim.ca), context: "prod-east" },
    },
    actorFor((await listUsers())[0]!, null),
  );
  cookie = await signIn("admin", "admin password here");
});
afterAll(() => sim.close());

describe("preview on the fixture cluster prod-east", () => {
  it("chrony.conf follows the cluster's own policy entry: Restart chronyd.service, no drain", async () => {
    const { status, body } = await preview(proposal("99-worker-chrony", { "/etc/chrony.conf": "server ntp.example.com iburst\n" }));
    expect(status).toBe(200);
    expect(body.policySource).toBe("cluster-status");
    const worker = body.pools.find((p: { pool: string }) => p.pool === "worker");
    expect(worker).toMatchObject({ verdict: "Restart chronyd.service, no drain", nodes: 5 });
    expect(worker.files[0]).toMatchObject({ path: "/etc/chrony.conf", after: "server ntp.example.com iburst\n" });
    expect(worker.files[0].before).toContain("pool 2.rhel.pool.ntp.org");
    // The infra pool also selects worker-role configs.
    expect(body.pools.map((p: { pool: string }) => p.pool).sort()).toEqual(["infra", "worker"]);
  });

  it("a new file under /etc/sysctl.d reboots the worker pool's nodes", async () => {
    const { body } = await preview(proposal("50-worker-sysctl", { "/etc/sysctl.d/99-net.conf": "net.core.somaxconn = 1024\n" }));
    expect(body.pools.find((p: { pool: string }) => p.pool === "worker")).toMatchObject({ verdict: "Reboot", nodes: 5 });
  });

  it("policy.json reloads crio without a drain; an image-mode pool says its image is reused", async () => {
    const { body } = await preview(proposal("50-worker-policy", { "/etc/containers/policy.json": '{"default":[{"type":"reject"}]}\n' }));
    const worker = body.pools.find((p: { pool: string }) => p.pool === "worker");
    expect(worker).toMatchObject({ verdict: "Reload crio.service, no drain" });
    expect(worker.preview.actionWords).toEqual(["Reload crio.service"]);
    expect(worker.preview.changes).toContainEqual(
      expect.objectContaining({
        name: "/etc/containers/policy.json",
        actions: [{ type: "Reload", reload: { serviceName: "crio.service" } }],
        actionWords: ["Reload crio.service"],
      }),
    );
    expect(body.pools.find((p: { pool: string }) => p.pool === "infra").notes.join(" ")).toMatch(
      /image-mode pool: the current OS image is reused/,
    );
  });

  it("explains input it cannot use", async () => {
    expect(await preview("kind: [")).toMatchObject({ status: 400, body: { error: expect.stringMatching(/not valid YAML/) } });
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from({ length: 8 }, (_, i) => `${"bcdefghi"[i]}: &${"bcdefghi"[i]} [${Array(10).fill(`*${"abcdefgh"[i]}`).join(", ")}]`),
    ].join("\n");
    expect(await preview(bomb)).toMatchObject({ status: 400, body: { error: expect.stringMatching(/not valid YAML/) } });
    expect(await preview("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/not a MachineConfig/) },
    });
    const unlabelled = await preview(proposal("50-nothing", { "/etc/x": "y" }, "nonexistent-role"));
    // What the cluster lacks, and the pools it has: not "label it like role: worker" to a MachineConfig that has a label.
    expect(unlabelled.body.unmatched).toMatch(
      /^prod-east has no pool that selects role: nonexistent-role, so this change does nothing there; its pools: .*worker selects role: worker \(5 machines\)/,
    );
    expect((await preview(proposal("x", {}), "no-such-cluster")).status).toBe(404);
  });
});

describe("an unreachable cluster", () => {
  it("is previewed from the configuration its last sweep kept, and the answer says so", async () => {
    const collector = new Collector(testCollectorOptions("test"));
    expect((await collector.runOnce()).map((r) => r.outcome)).toEqual(["ok"]);
    const change = proposal("99-worker-chrony", { "/etc/chrony.conf": "server ntp.example.com iburst\n" });
    const live = await preview(change);
    fleet.setFaults("prod-east", { errorEvery: 1, errorStatus: 503 });
    try {
      const { status, body } = await preview(change);
      expect(status).toBe(200);
      expect(body).toMatchObject({ source: "stored", policySource: "cluster-status" });
      expect(body.sourceNote).toMatch(
        /^cannot read prod-east now: .*This preview uses the configuration Fleetskew kept from its last sweep/,
      );
      // The same answer as from the live cluster.
      expect(body.pools).toEqual(live.body.pools);
    } finally {
      fleet.setFaults("prod-east", undefined);
    }
  });
});

describe("fleet preview", () => {
  it("previews several clusters at once, summarises, and reports a cluster it cannot reach without failing the rest", async () => {
    await registerCluster(
      { name: "gone", labels: {}, source: { type: "token", apiUrl: "https://127.0.0.1:1", token: "t", insecureSkipTlsVerify: true } },
      actorFor((await listUsers())[0]!, null),
    );
    const res = await fleetRoute(
      request("/api/v1/preview", {
        method: "POST",
        cookie,
        body: { machineConfig: proposal("50-worker-sysctl", { "/etc/sysctl.d/99-net.conf": "x\n" }), clusters: "all" },
      }),
    );
    const body = await res.json();
    expect(res.status).toBe(200);
    expect(body.summary).toMatchObject({ rebootNodes: 7, rebootClusters: 1, failed: 1 });
    // The summary names the clusters: the one that reboots, the one that failed.
    expect(body.summary.text).toBe(
      "reboots 7 nodes in 1 cluster (prod-east), no reboot in 0 clusters (0 nodes); 1 cluster could not be previewed (gone)",
    );
    expect(body.summary.names).toMatchObject({ reboot: ["prod-east"], failed: ["gone"] });
    expect(body.clusters.find((c: { cluster: string }) => c.cluster === "gone").error).toMatch(/cannot read gone/);
  });

  it("previews the clusters a fleet view's query string matches, and refuses a bad or too wide one", async () => {
    const preview = (clusters: unknown) =>
      fleetRoute(
        request("/api/v1/preview", {
          method: "POST",
          cookie,
          body: { machineConfig: proposal("50-worker-sysctl", { "/etc/sysctl.d/99-net.conf": "x\n" }), clusters },
        }),
      );
    const named = await preview({ query: "name=prod-east" });
    const body = await named.json();
    expect(named.status).toBe(200);
    expect(body.clusters.map((c: { cluster: string }) => c.cluster)).toEqual(["prod-east"]);
    const bad = await preview({ query: "version=latest" });
    expect([bad.status, (await bad.json()).error]).toEqual([
      400,
      "The version must be a minor version like 4.19, or unknown (in the cluster filter)",
    ]);
    const none = await preview({ query: "q=no-such-cluster" });
    expect([none.status, (await none.json()).error]).toEqual([422, "No live cluster matches this filter"]);
  });
});
