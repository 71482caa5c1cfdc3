import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHubSimulator, type HubSimulator } from "./server";
import { clientConfig, conditionOf, eventually, failure, rawGet } from "./testing";

/**
 * A hub before MCE 2.9: its cluster-proxy does not impersonate hub users, so clusters are reached
 * with a ManagedServiceAccount each (docs/acm.md §2, §4). Over HTTPS with the real client.
 */
let sim: HubSimulator;
const PERMISSIONS = { group: "rbac.open-cluster-management.io", version: "v1alpha1", plural: "clusterpermissions" };
const MSAS = { group: "authentication.open-cluster-management.io", version: "v1beta1", plural: "managedserviceaccounts" };
const MSA_GROUP = "authentication.open-cluster-management.io";

beforeAll(async () => {
  sim = await startHubSimulator({ clusters: 12, permissionDelayMs: 100, serviceAccountDelayMs: 100, mceVersion: "2.7.3" });
});
afterAll(() => sim?.close());

const hub = () => clientConfig(sim.hubUrl, sim.ca, sim.tokens.admin).makeApiClient(k8s.CustomObjectsApi);
const core = () => clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader).makeApiClient(k8s.CoreV1Api);
const nodes = (cluster: string, token: string) =>
  clientConfig(`${sim.proxyUrl}/${cluster}`, sim.ca, token).makeApiClient(k8s.CoreV1Api).listNode();

async function accountToken(cluster: string): Promise<string> {
  const secret = await eventually(() =>
    core()
      .readNamespacedSecret({ namespace: cluster, name: "fleetskew" })
      .catch(() => undefined),
  );
  return Buffer.from(secret.data!.token!, "base64").toString();
}

async function grant(cluster: string, subject: Record<string, string>, name = "fleetskew") {
  await hub().createNamespacedCustomObject({
    ...PERMISSIONS,
    namespace: cluster,
    body: {
      metadata: { name },
      spec: {
        clusterRole: { rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["list"] }] },
        clusterRoleBinding: { subject },
      },
    },
  });
  await eventually(async () => {
    const cp = await hub().getNamespacedCustomObject({ ...PERMISSIONS, namespace: cluster, name });
    return conditionOf(cp, "AppliedRBACManifestWork")?.status === "True" ? true : undefined;
  });
}

describe("a hub before MCE 2.9", () => {
  it("reports its version on the MultiClusterEngine", async () => {
    const mce = (await hub().listClusterCustomObject({
      group: "multicluster.openshift.io",
      version: "v1",
      plural: "multiclusterengines",
    })) as {
      items: { status: { currentVersion: string } }[];
    };
    expect(mce.items[0]!.status.currentVersion).toBe("2.7.3");
  });

  it("passes a hub token on as it came, so a managed cluster answers 401; the hub itself still knows it", async () => {
    const refused = await rawGet(`${sim.proxyUrl}/prod-east/api/v1/nodes`, sim.ca, sim.tokens.proxy);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ kind: "Status", reason: "Unauthorized", code: 401 });
    // On local-cluster the managed cluster is the hub: its own TokenReview accepts the token (403: nothing granted yet).
    expect((await failure(nodes("local-cluster", sim.tokens.proxy))).code).toBe(403);
  });

  it("binds a ManagedServiceAccount subject only when it names the API group, as the controller does", async () => {
    await hub().createNamespacedCustomObject({
      ...MSAS,
      namespace: "prod-east",
      body: { metadata: { name: "fleetskew" }, spec: { rotation: {} } },
    });
    const token = await accountToken("prod-east");
    await grant("prod-east", { kind: "ManagedServiceAccount", name: "fleetskew" }, "no-group");
    expect((await failure(nodes("prod-east", token))).code).toBe(403);
    await grant("prod-east", { kind: "ManagedServiceAccount", apiGroup: MSA_GROUP, name: "fleetskew" });
    expect((await nodes("prod-east", token)).items.length).toBeGreaterThan(0);
  });

  it("rotates a token: the new one works at once, the old one until it expires or is revoked", async () => {
    const before = await accountToken("prod-east");
    const refreshed = async () =>
      (
        (await hub().getNamespacedCustomObject({ ...MSAS, namespace: "prod-east", name: "fleetskew" })) as {
          status: { tokenSecretRef: { lastRefreshTimestamp: string } };
        }
      ).status.tokenSecretRef.lastRefreshTimestamp;
    const firstRefresh = await refreshed();
    await new Promise((r) => setTimeout(r, 1_100)); // timestamps have whole seconds
    sim.hub.rotateServiceAccountToken("prod-east", "fleetskew");
    const after = await accountToken("prod-east");
    expect(after).not.toBe(before);
    expect(await refreshed()).not.toBe(firstRefresh);
    expect((await nodes("prod-east", after)).items.length).toBeGreaterThan(0);
    expect((await nodes("prod-east", before)).items.length).toBeGreaterThan(0);
    sim.hub.rotateServiceAccountToken("prod-east", "fleetskew", { revokeOld: true });
    expect((await failure(nodes("prod-east", after))).code).toBe(401);
    expect((await nodes("prod-east", await accountToken("prod-east"))).items.length).toBeGreaterThan(0);
  });
});
