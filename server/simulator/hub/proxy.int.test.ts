import * as k8s from "@kubernetes/client-node";
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterClient } from "../../kube/client";
import { clusterPermission } from "../../kube/hub";
import { readAlerts } from "../../kube/readers";
import { proxiedCredentials } from "../../hubs/sync";
import { HUB_PROXY_USER } from "./hub";
import { startHubSimulator, type HubSimulator } from "./server";
import { clientConfig, conditionOf, eventually, failure, rawGet } from "./testing";

/** The cluster-proxy user-server of the simulated hub, through the real Kubernetes client over HTTPS. */
let sim: HubSimulator;
const PERMISSIONS = { group: "rbac.open-cluster-management.io", version: "v1alpha1", plural: "clusterpermissions" };
const MSAS = { group: "authentication.open-cluster-management.io", version: "v1beta1", plural: "managedserviceaccounts" };
const IMPERSONATED = `cluster:hub:${HUB_PROXY_USER}`;

beforeAll(async () => {
  sim = await startHubSimulator({ clusters: 12, permissionDelayMs: 200, serviceAccountDelayMs: 200 });
});
afterAll(() => sim?.close());

const hub = () => clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader).makeApiClient(k8s.CustomObjectsApi);
const through = (cluster: string, token = sim.tokens.proxy) => clientConfig(`${sim.proxyUrl}/${cluster}`, sim.ca, token);
const nodes = (cluster: string, token?: string) => through(cluster, token).makeApiClient(k8s.CoreV1Api).listNode();

/** The permission Fleetskew asks for on one cluster: read nodes and MachineConfigPools, bound to `subject`. */
async function grant(cluster: string, subject: Record<string, string>) {
  await hub().createNamespacedCustomObject({
    ...PERMISSIONS,
    namespace: cluster,
    body: {
      apiVersion: "rbac.open-cluster-management.io/v1alpha1",
      kind: "ClusterPermission",
      metadata: { name: "fleetskew" },
      spec: {
        clusterRole: {
          rules: [
            { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
            { apiGroups: ["machineconfiguration.openshift.io"], resources: ["machineconfigpools"], verbs: ["get", "list", "watch"] },
          ],
        },
        clusterRoleBinding: { subject },
      },
    },
  });
  await eventually(async () => {
    const cp = await hub().getNamespacedCustomObject({ ...PERMISSIONS, namespace: cluster, name: "fleetskew" });
    return conditionOf(cp, "AppliedRBACManifestWork")?.status === "True" ? true : undefined;
  });
}

describe("the cluster-proxy user-server", () => {
  it("answers 401 for a token neither the cluster nor the hub accepts", async () => {
    expect((await failure(nodes("prod-east", "sha256~unknown"))).code).toBe(401);
    const refused = await rawGet(`${sim.proxyUrl}/prod-east/api/v1/nodes`, sim.ca, "sha256~unknown");
    expect(refused).toEqual({ status: 401, body: "authentication failed: token is neither valid for managed cluster nor hub cluster\n" });
  });

  it("answers 400 for a path without a cluster", async () => {
    expect((await rawGet(`${sim.proxyUrl}/prod-east`, sim.ca, sim.tokens.proxy)).status).toBe(400);
    expect((await rawGet(`${sim.proxyUrl}/%E0%A4%A/api`, sim.ca, sim.tokens.proxy)).status).toBe(400);
  });

  it("answers the cluster's 403 until a ClusterPermission binds the impersonated hub identity, then 200", async () => {
    const before = await failure(nodes("prod-east"));
    expect(before.code).toBe(403);
    expect(before.body).toContain(`User \\"${IMPERSONATED}\\" cannot list resource \\"nodes\\"`);
    await grant("prod-east", { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: IMPERSONATED });
    const list = await nodes("prod-east");
    expect(list.items.length).toBeGreaterThan(0);
    // Only what was granted: ClusterVersion stays refused.
    const cv = await failure(
      through("prod-east")
        .makeApiClient(k8s.CustomObjectsApi)
        .listClusterCustomObject({ group: "config.openshift.io", version: "v1", plural: "clusterversions" }),
    );
    expect(cv.code).toBe(403);
    // Discovery needs no grant.
    expect((await through("prod-east").makeApiClient(k8s.VersionApi).getCode()).minor).toBe("32");
  });

  it("carries writes through, refused until granted", async () => {
    const pins = through("prod-east").makeApiClient(k8s.CustomObjectsApi);
    const target = { group: "machineconfiguration.openshift.io", version: "v1", plural: "pinnedimagesets" };
    const body = {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "PinnedImageSet",
      metadata: { name: "fleetskew-test", labels: { "machineconfiguration.openshift.io/role": "worker" } },
      spec: { pinnedImages: [{ name: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + "a".repeat(64) }] },
    };
    expect((await failure(pins.createClusterCustomObject({ ...target, body }))).code).toBe(403);
    await hub().patchNamespacedCustomObject(
      {
        ...PERMISSIONS,
        namespace: "prod-east",
        name: "fleetskew",
        body: {
          spec: {
            clusterRole: {
              rules: [
                { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
                { apiGroups: ["machineconfiguration.openshift.io"], resources: ["pinnedimagesets"], verbs: ["create", "delete"] },
              ],
            },
          },
        },
      },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    const created = await eventually(() => pins.createClusterCustomObject({ ...target, body }).catch(() => undefined));
    expect((created as { metadata: { name: string } }).metadata.name).toBe("fleetskew-test");
    const onCluster = sim.fleet.get("prod-east")!;
    const info = onCluster.kindFor({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "PinnedImageSet" })!;
    expect(onCluster.store.get(info, undefined, "fleetskew-test").metadata.name).toBe("fleetskew-test");
  });

  it("on local-cluster binds the plain service account, without the cluster:hub: prefix", async () => {
    await grant("local-cluster", { kind: "ServiceAccount", namespace: "fleetskew", name: "fleetskew-hub-proxy" });
    expect((await nodes("local-cluster")).items.length).toBeGreaterThan(0);
  });

  it("answers 502 while the cluster's lease is expired, and serves it again once renewed", async () => {
    sim.expireLease("prod-east");
    expect((await failure(nodes("prod-east"))).code).toBe(502);
    const offline = await rawGet(`${sim.proxyUrl}/prod-east/api/v1/nodes`, sim.ca, sim.tokens.proxy);
    expect(offline.body).toMatch(/^proxy to anp-proxy-server failed because /);
    sim.renewLease("prod-east");
    expect((await nodes("prod-east")).items.length).toBeGreaterThan(0);
  });

  it("answers 502 for a cluster whose cluster-proxy add-on is unavailable, and for one with no agent behind it", async () => {
    expect((await failure(nodes("edge-no-proxy"))).code).toBe(502);
    expect((await failure(nodes("eks-analytics"))).code).toBe(502);
    expect((await failure(nodes("no-such-cluster"))).code).toBe(502);
  });

  it("answers 502 once the hub's administrator detaches the cluster", async () => {
    const cluster = sim.hub.memberNames().find((n) => /-\d{4}$/.test(n))!;
    const admin = clientConfig(sim.hubUrl, sim.ca, sim.tokens.admin).makeApiClient(k8s.CustomObjectsApi);
    await admin.deleteClusterCustomObject({
      group: "cluster.open-cluster-management.io",
      version: "v1",
      plural: "managedclusters",
      name: cluster,
    });
    expect(sim.hub.member(cluster)).toBeUndefined();
    expect((await failure(nodes(cluster))).code).toBe(502);
    const infos = (await hub().listCustomObjectForAllNamespaces({
      group: "internal.open-cluster-management.io",
      version: "v1beta1",
      plural: "managedclusterinfos",
    })) as { items: { metadata: { name: string } }[] };
    expect(infos.items.map((i) => i.metadata.name)).not.toContain(cluster);
  });

  it("forwards a cluster's own token unchanged", async () => {
    const own = sim.hub.member("prod-east-422")!.backing!.spec.token;
    expect((await nodes("prod-east-422", own)).items.length).toBeGreaterThan(0);
  });

  it("accepts a ManagedServiceAccount token once a ClusterPermission binds the account", async () => {
    await hub().createNamespacedCustomObject({
      ...MSAS,
      namespace: "hcp-tenant-1",
      body: { metadata: { name: "fleetskew" }, spec: { rotation: {} } },
    });
    const core = clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader).makeApiClient(k8s.CoreV1Api);
    const secret = await eventually(() =>
      core.readNamespacedSecret({ namespace: "hcp-tenant-1", name: "fleetskew" }).catch(() => undefined),
    );
    const token = Buffer.from(secret.data!.token!, "base64").toString();
    expect((await failure(nodes("hcp-tenant-1", token))).code).toBe(403);
    await grant("hcp-tenant-1", {
      kind: "ManagedServiceAccount",
      apiGroup: "authentication.open-cluster-management.io",
      name: "fleetskew",
    });
    expect((await nodes("hcp-tenant-1", token)).items.length).toBeGreaterThan(0);
    // The token is the cluster's: another cluster does not accept it.
    expect((await failure(nodes("prod-east-422", token))).code).toBe(401);
  });

  it("reaches the Thanos querier through the service path with a ManagedServiceAccount token that Fleetskew's ClusterPermission grants, and only an exposed service", async () => {
    const cluster = "prod-east";
    await hub().createNamespacedCustomObject({
      ...MSAS,
      namespace: cluster,
      body: { metadata: { name: "fleetskew-alerts" }, spec: { rotation: {} } },
    });
    const core = clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader).makeApiClient(k8s.CoreV1Api);
    const secret = await eventually(() =>
      core.readNamespacedSecret({ namespace: cluster, name: "fleetskew-alerts" }).catch(() => undefined),
    );
    const token = Buffer.from(secret.data!.token!, "base64").toString();
    sim.fleet.setMonitoring(cluster, { alerts: "critical-and-pdb" });
    const client = new ClusterClient(proxiedCredentials(sim.proxyUrl, cluster, token, sim.ca), {
      timeoutMs: 2_000,
      retries: 0,
      retryDelayMs: 0,
    });
    try {
      // Known to the cluster but not granted: the querier's kube-rbac-proxy refuses the account.
      const refused = await readAlerts(client);
      expect(refused).toMatchObject({ status: "unknown", failure: { at: "querier", status: 403 } });
      expect(refused.status === "unknown" && refused.reason).toContain(
        "Forbidden (user=system:serviceaccount:open-cluster-management-agent-addon:fleetskew-alerts, verb=get, resource=prometheuses, subresource=api)",
      );
      const subject = {
        kind: "ManagedServiceAccount" as const,
        apiGroup: "authentication.open-cluster-management.io",
        name: "fleetskew-alerts",
      };
      await hub().createNamespacedCustomObject({
        ...PERMISSIONS,
        namespace: cluster,
        body: { ...(clusterPermission(cluster, subject) as object), metadata: { name: "fleetskew-alerts", namespace: cluster } },
      });
      const read = await eventually(async () => {
        const r = await readAlerts(client);
        return r.status === "ok" ? r : undefined;
      });
      expect(read.value.data.alerts.map((a) => a.labels?.alertname)).toContain("KubeAPIErrorBudgetBurn");

      // A hub token is not the cluster's: the querier cannot review it (the service-proxy impersonates only for the API server).
      const hubToken = new ClusterClient(proxiedCredentials(sim.proxyUrl, cluster, sim.tokens.proxy, sim.ca), {
        timeoutMs: 2_000,
        retries: 0,
        retryDelayMs: 0,
      });
      expect(await readAlerts(hubToken)).toMatchObject({ status: "unknown", failure: { at: "querier", status: 401 } });
      hubToken.close();

      // A hub that exposes no monitoring service refuses the path with the allowlist's words.
      const exposed = sim.hub.exposedServices;
      sim.hub.exposedServices = [];
      try {
        const closed = await readAlerts(client);
        expect(closed.status === "unknown" && closed.reason).toContain(
          "the hub's cluster-proxy does not expose openshift-monitoring/thanos-querier (GET /api/v1/namespaces/openshift-monitoring/services/https:thanos-querier:9091/proxy-service/api/v1/alerts was answered 403: service openshift-monitoring/thanos-querier is not in the exposed services allowlist)",
        );
      } finally {
        sim.hub.exposedServices = exposed;
      }
    } finally {
      client.close();
      sim.fleet.setMonitoring(cluster, undefined);
    }
  });

  it("answers the service-proxy's empty 502 for a request the cluster drops, on an HTTP/2 connection that goes on carrying other clusters' requests", async () => {
    const [dropping, healthy] = sim.hub.memberNames().filter((n) => /-\d{4}$/.test(n) && !sim.fleet.get(n)!.spec.faults);
    const session = http2.connect(sim.proxyUrl, { ca: sim.ca });
    const get = (cluster: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const token = sim.hub.member(cluster)!.backing!.spec.token;
        const stream = session.request({ ":path": `/${cluster}/api/v1/nodes`, authorization: `Bearer ${token}` });
        let status = 0;
        let body = "";
        stream.on("response", (headers) => (status = Number(headers[":status"])));
        stream.on("data", (chunk) => (body += chunk));
        stream.on("end", () => resolve({ status, body }));
        stream.on("error", reject);
      });
    // A flap period as long as the epoch so far puts now in its second half, in which the cluster drops every request.
    sim.fleet.setFaults(dropping!, { flapPeriodMs: Date.now() - 1000 });
    try {
      const [dropped, answered] = await Promise.all([get(dropping!), get(healthy!)]);
      expect(dropped).toEqual({ status: 502, body: "" });
      expect(answered.status).toBe(200);
      expect((await get(healthy!)).status).toBe(200);
      expect(session.closed || session.destroyed).toBe(false);
    } finally {
      sim.fleet.setFaults(dropping!, undefined);
      session.close();
    }
  });

  it("streams a watch through the tunnel and ends it when the cluster goes offline", async () => {
    const cluster = sim.hub.memberNames().find((n) => /-\d{4}$/.test(n) && !sim.fleet.get(n)!.spec.faults)!;
    await grant(cluster, { kind: "User", name: IMPERSONATED });
    const pools = (await through(cluster)
      .makeApiClient(k8s.CustomObjectsApi)
      .listClusterCustomObject({ group: "machineconfiguration.openshift.io", version: "v1", plural: "machineconfigpools" })) as {
      metadata: { resourceVersion: string };
    };
    const seen: string[] = [];
    let ended = false;
    await new k8s.Watch(through(cluster)).watch(
      "/apis/machineconfiguration.openshift.io/v1/machineconfigpools",
      { resourceVersion: pools.metadata.resourceVersion },
      (type) => seen.push(type),
      () => (ended = true),
    );
    const simulated = sim.fleet.get(cluster)!;
    const info = simulated.kindFor({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool" })!;
    const master = simulated.store.get(info, undefined, "master");
    simulated.store.replace(info, undefined, "master", { ...master, metadata: { ...master.metadata, labels: { touched: "yes" } } });
    await eventually(() => (seen.includes("MODIFIED") ? true : undefined));
    sim.expireLease(cluster);
    await eventually(() => (ended ? true : undefined));
    sim.renewLease(cluster);
  });
});
