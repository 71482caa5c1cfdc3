import https from "node:https";
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHubSimulator, type HubSimulator } from "./server";
import { clientConfig, conditionOf, eventually, failure } from "./testing";

/** The simulated hub's API through the real Kubernetes client over HTTPS. */
let sim: HubSimulator;
const CLUSTER = { group: "cluster.open-cluster-management.io", version: "v1", plural: "managedclusters" };
const PERMISSIONS = { group: "rbac.open-cluster-management.io", version: "v1alpha1", plural: "clusterpermissions" };
const MSAS = { group: "authentication.open-cluster-management.io", version: "v1beta1", plural: "managedserviceaccounts" };
type Obj = {
  metadata: { name: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status?: Record<string, unknown>;
};
type List = { metadata: { resourceVersion: string; continue?: string }; items: Obj[] };

beforeAll(async () => {
  sim = await startHubSimulator({ clusters: 60, permissionDelayMs: 300, serviceAccountDelayMs: 300 });
});
afterAll(() => sim?.close());

const api = (token = sim.tokens.reader) => clientConfig(sim.hubUrl, sim.ca, token).makeApiClient(k8s.CustomObjectsApi);

describe("discovery", () => {
  it("serves the API groups a fleet source needs", async () => {
    const groups = await clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader).makeApiClient(k8s.ApisApi).getAPIVersions();
    expect(groups.groups.map((g) => g.name)).toEqual(
      expect.arrayContaining([
        "cluster.open-cluster-management.io",
        "internal.open-cluster-management.io",
        "addon.open-cluster-management.io",
        "rbac.open-cluster-management.io",
        "authentication.open-cluster-management.io",
        "multicluster.openshift.io",
      ]),
    );
    const cluster = groups.groups.find((g) => g.name === "cluster.open-cluster-management.io")!;
    expect(cluster.versions.map((v) => v.version).sort()).toEqual(["v1", "v1beta2"]);
    const resources = await api().getAPIResources({ group: "addon.open-cluster-management.io", version: "v1alpha1" });
    expect(resources.resources.map((r) => r.name)).toContain("managedclusteraddons");
  });
});

describe("the fleet on the hub", () => {
  it("lists every managed cluster, the scenario's special ones with their claims and labels", async () => {
    const list = (await api().listClusterCustomObject(CLUSTER)) as List;
    expect(list.items).toHaveLength(60);
    const byName = new Map(
      list.items.map((o) => [o.metadata.name, o as Obj & { status: { clusterClaims: { name: string; value: string }[] } }]),
    );
    const claim = (name: string, claimName: string) => byName.get(name)!.status.clusterClaims.find((c) => c.name === claimName)?.value;
    expect(byName.get("local-cluster")!.metadata.labels).toMatchObject({ "local-cluster": "true", vendor: "OpenShift" });
    expect(claim("eks-analytics", "product.open-cluster-management.io")).toBe("EKS");
    expect(claim("eks-analytics", "id.openshift.io")).toBeUndefined();
    expect(claim("hcp-tenant-1", "controlplanetopology.openshift.io")).toBe("External");
    expect(claim("prod-east", "id.openshift.io")).toBe("6f1d2c3b-8e4a-4b7e-9c2d-1a5f3e7b9d04");
    expect(claim("prod-east", "version.openshift.io")).toBe("4.19.10");
    for (const o of list.items) expect(o.metadata.labels?.["cluster.open-cluster-management.io/clusterset"]).toBeTruthy();
    const addOn = (await api().getNamespacedCustomObject({
      group: "addon.open-cluster-management.io",
      version: "v1alpha1",
      plural: "managedclusteraddons",
      namespace: "edge-no-proxy",
      name: "cluster-proxy",
    })) as Obj;
    expect(conditionOf(addOn, "Available")?.status).toBe("False");
  });

  it("pages a list with limit and continue, without losing or repeating a cluster", async () => {
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = (await api().listClusterCustomObject({ ...CLUSTER, limit: 7, _continue: token })) as List;
      names.push(...page.items.map((o) => o.metadata.name));
      token = page.metadata.continue;
      pages++;
    } while (token);
    expect(pages).toBe(9);
    expect(new Set(names).size).toBe(60);
  });

  it("selects ManagedClusterInfos by label across namespaces", async () => {
    const infos = (await api().listCustomObjectForAllNamespaces({
      group: "internal.open-cluster-management.io",
      version: "v1beta1",
      plural: "managedclusterinfos",
      labelSelector: "local-cluster=true",
    })) as List;
    expect(infos.items.map((o) => o.metadata.name)).toEqual(["local-cluster"]);
    expect(infos.items[0]!.status).toMatchObject({ distributionInfo: { type: "OCP" } });
  });
});

describe("kubectl's server-side printing", () => {
  it("answers a Table with the CRD's columns when asked for one", async () => {
    const res = await fetchTable(`${sim.hubUrl}/apis/cluster.open-cluster-management.io/v1/managedclusters?limit=3`);
    expect(res.kind).toBe("Table");
    expect(res.columnDefinitions.map((c) => c.name)).toEqual([
      "Name",
      "Hub Accepted",
      "Managed Cluster URLs",
      "Joined",
      "Available",
      "Age",
    ]);
    expect(res.rows).toHaveLength(3);
    expect(res.rows[0]!.cells.slice(3, 5)).toEqual(["True", "True"]);
    expect(res.metadata.continue).toBeTruthy();
  });
});

async function fetchTable(url: string) {
  const { body } = await new Promise<{ body: string }>((resolve, reject) => {
    https
      .get(
        url,
        {
          ca: sim.ca,
          headers: {
            authorization: `Bearer ${sim.tokens.reader}`,
            accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
          },
        },
        (r) => {
          let text = "";
          r.on("data", (d) => (text += d));
          r.on("end", () => resolve({ body: text }));
        },
      )
      .on("error", reject);
  });
  return JSON.parse(body) as {
    kind: string;
    metadata: { continue?: string };
    columnDefinitions: { name: string }[];
    rows: { cells: unknown[] }[];
  };
}

describe("tokens and hub RBAC", () => {
  it("refuses an unknown token with 401 and the proxy's service account with 403", async () => {
    expect((await failure(api("not-a-token").listClusterCustomObject(CLUSTER))).code).toBe(401);
    const denied = await failure(api(sim.tokens.proxy).listClusterCustomObject(CLUSTER));
    expect(denied.code).toBe(403);
    expect(denied.body).toContain('cannot list resource \\"managedclusters\\"');
  });

  it("lets the reader create ClusterPermissions but not ManagedClusters", async () => {
    const refused = await failure(api().createClusterCustomObject({ ...CLUSTER, body: { metadata: { name: "intruder" } } }));
    expect(refused.code).toBe(403);
  });
});

describe("watching the fleet", () => {
  it("sends ADDED, MODIFIED and DELETED as clusters join, go offline and leave", async () => {
    const list = (await api().listClusterCustomObject(CLUSTER)) as List;
    const events: { type: string; name: string; available?: string; deleting: boolean }[] = [];
    const watch = new k8s.Watch(clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader));
    const controller = await watch.watch(
      "/apis/cluster.open-cluster-management.io/v1/managedclusters",
      { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true },
      (type, obj: Obj) =>
        events.push({
          type,
          name: obj.metadata.name,
          available: conditionOf(obj, "ManagedClusterConditionAvailable")?.status,
          deleting: obj.metadata.deletionTimestamp !== undefined,
        }),
      () => undefined,
    );
    try {
      sim.addCluster("new-site-0001");
      sim.expireLease("prod-east");
      sim.deleteCluster("lab-west-0001");
      await eventually(() => (events.some((e) => e.type === "DELETED") ? true : undefined));
      expect(events.find((e) => e.name === "new-site-0001")).toMatchObject({ type: "ADDED", available: "True" });
      expect(events.find((e) => e.name === "prod-east")).toMatchObject({ type: "MODIFIED", available: "Unknown" });
      const leaving = events.filter((e) => e.name === "lab-west-0001");
      expect(leaving.map((e) => e.type)).toEqual(["MODIFIED", "MODIFIED", "DELETED"]);
      expect(leaving[0]!.deleting).toBe(true);
    } finally {
      controller.abort();
      sim.renewLease("prod-east");
    }
    const after = (await api().listClusterCustomObject(CLUSTER)) as List;
    expect(after.items.map((o) => o.metadata.name)).toContain("new-site-0001");
    expect(after.items.map((o) => o.metadata.name)).not.toContain("lab-west-0001");
  });

  it("shows an imported cluster accepted but not joined, then joined and available", async () => {
    const list = (await api().listClusterCustomObject(CLUSTER)) as List;
    const seen: { type: string; joined?: string; available?: string; vendor?: string }[] = [];
    const controller = await new k8s.Watch(clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader)).watch(
      "/apis/cluster.open-cluster-management.io/v1/managedclusters",
      { resourceVersion: list.metadata.resourceVersion, fieldSelector: "metadata.name=new-site-0003" },
      (type, obj: Obj) =>
        seen.push({
          type,
          joined: conditionOf(obj, "ManagedClusterJoined")?.status,
          available: conditionOf(obj, "ManagedClusterConditionAvailable")?.status,
          vendor: obj.metadata.labels?.vendor,
        }),
      () => undefined,
    );
    try {
      sim.addCluster("new-site-0003", { joinAfterMs: 300 });
      expect(sim.hub.tunnelDown("new-site-0003")).toMatch(/not joined/);
      await eventually(() => (seen.some((e) => e.available === "True") ? true : undefined));
      expect(seen[0]).toEqual({ type: "ADDED", joined: undefined, available: undefined, vendor: undefined });
      expect(seen.at(-1)).toMatchObject({ type: "MODIFIED", joined: "True", available: "True", vendor: "OpenShift" });
      expect(sim.hub.tunnelDown("new-site-0003")).toBeNull();
    } finally {
      controller.abort();
    }
  });

  it("answers a watch from a resourceVersion older than it keeps with 410 Expired", async () => {
    const old = ((await api().listClusterCustomObject(CLUSTER)) as List).metadata.resourceVersion;
    for (let i = 0; i < 600; i++) {
      sim.expireLease("prod-east-422");
      sim.renewLease("prod-east-422");
    }
    const errors: { code?: number; reason?: string }[] = [];
    let ended = false;
    await new k8s.Watch(clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader)).watch(
      "/apis/cluster.open-cluster-management.io/v1/managedclusters",
      { resourceVersion: old },
      (type, obj) => type === "ERROR" && errors.push(obj),
      () => (ended = true),
    );
    await eventually(() => (ended ? true : undefined));
    expect(errors).toEqual([expect.objectContaining({ code: 410, reason: "Expired" })]);
  });

  it("sends a bookmark with the latest resourceVersion before it ends a watch that allows them", async () => {
    const from = ((await api().listClusterCustomObject(CLUSTER)) as List).metadata.resourceVersion;
    sim.expireLease("prod-east");
    sim.renewLease("prod-east");
    const bookmarks: Obj[] = [];
    let ended = false;
    await new k8s.Watch(clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader)).watch(
      "/apis/internal.open-cluster-management.io/v1beta1/managedclusterinfos",
      { resourceVersion: from, allowWatchBookmarks: true, timeoutSeconds: 1 },
      (type, obj: Obj) => type === "BOOKMARK" && bookmarks.push(obj),
      () => (ended = true),
    );
    await eventually(() => (ended ? true : undefined));
    expect(bookmarks).toHaveLength(1);
    // Nothing happened to ManagedClusterInfos, but the watch is up to date with the ManagedCluster changes.
    expect(Number(bookmarks[0]!.metadata.resourceVersion)).toBeGreaterThan(Number(from));
    expect(bookmarks[0]!.metadata.name).toBeUndefined();
  });

  it("keeps an informer in step (list, then watch)", async () => {
    const kc = clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader);
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const path = "/apis/cluster.open-cluster-management.io/v1/managedclusters";
    const informer = k8s.makeInformer<k8s.KubernetesObject>(
      kc,
      path,
      () => custom.listClusterCustomObject(CLUSTER) as Promise<k8s.KubernetesListObject<k8s.KubernetesObject>>,
    );
    const deleted: string[] = [];
    informer.on("delete", (o) => deleted.push(o.metadata!.name!));
    await informer.start();
    try {
      const count = informer.list().length;
      sim.addCluster("new-site-0002");
      await eventually(() => (informer.list().length === count + 1 ? true : undefined));
      sim.deleteCluster("new-site-0002");
      await eventually(() => (deleted.includes("new-site-0002") ? true : undefined));
      expect(informer.list().length).toBe(count);
    } finally {
      await informer.stop();
    }
  });
});

describe("what the agents report", () => {
  const addOnAvailability = async (cluster: string) => {
    const list = (await api().listNamespacedCustomObject({
      group: "addon.open-cluster-management.io",
      version: "v1alpha1",
      plural: "managedclusteraddons",
      namespace: cluster,
    })) as List;
    return Object.fromEntries(list.items.map((o) => [o.metadata.name, conditionOf(o, "Available")?.status]));
  };

  it("marks every add-on Unknown while the cluster's lease is expired", async () => {
    sim.expireLease("store-south-0009");
    expect(await addOnAvailability("store-south-0009")).toEqual({ "cluster-proxy": "Unknown", "managed-serviceaccount": "Unknown" });
    sim.renewLease("store-south-0009");
    expect(await addOnAvailability("store-south-0009")).toEqual({ "cluster-proxy": "True", "managed-serviceaccount": "True" });
  });

  it("refreshes ManagedClusterInfo, version claim and labels from the cluster", async () => {
    const cluster = sim.fleet.get("prod-east-422")!;
    const info = cluster.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
    const cv = cluster.store.get(info, undefined, "version") as Obj & { status: { history: object[]; conditions: object[] } };
    const status = {
      ...cv.status,
      desired: { version: "4.22.9", channels: ["stable-4.22"] },
      history: [{ state: "Partial", version: "4.22.9", verified: true }, ...cv.status.history],
      conditions: [...cv.status.conditions, { type: "Failing", status: "True", reason: "ClusterOperatorDegraded", message: "" }],
    };
    cluster.store.replace(info, undefined, "version", { ...cv, status } as never, "status");
    sim.refreshClusterInfo("prod-east-422");
    const mci = (await api().getNamespacedCustomObject({
      group: "internal.open-cluster-management.io",
      version: "v1beta1",
      plural: "managedclusterinfos",
      namespace: "prod-east-422",
      name: "prod-east-422",
    })) as Obj & { status: { distributionInfo: { ocp: { version: string; desiredVersion: string; upgradeFailed: boolean } } } };
    // The version is the newest Completed entry: it lags the running (here failing) upgrade.
    expect(mci.status.distributionInfo.ocp).toMatchObject({ version: "4.22.3", desiredVersion: "4.22.9", upgradeFailed: true });
    const completed = { ...status, history: [{ state: "Completed", version: "4.22.9", verified: true }, ...cv.status.history] };
    cluster.store.replace(
      info,
      undefined,
      "version",
      { ...cluster.store.get(info, undefined, "version"), status: { ...completed, conditions: cv.status.conditions } } as never,
      "status",
    );
    sim.refreshClusterInfo("prod-east-422");
    const mc = (await api().getClusterCustomObject({ ...CLUSTER, name: "prod-east-422" })) as Obj & {
      status: { clusterClaims: { name: string; value: string }[] };
    };
    expect(mc.metadata.labels).toMatchObject({ openshiftVersion: "4.22.9", "openshiftVersion-major-minor": "4.22" });
    expect(mc.status.clusterClaims.find((c) => c.name === "version.openshift.io")?.value).toBe("4.22.9");
  });
});

describe("ClusterPermission and ManagedServiceAccount controllers", () => {
  it("applies a ClusterPermission after the delay, and refuses one outside a cluster namespace", async () => {
    const body = {
      apiVersion: "rbac.open-cluster-management.io/v1alpha1",
      kind: "ClusterPermission",
      metadata: { name: "fleetskew" },
      spec: {
        clusterRole: { rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "list"] }] },
        clusterRoleBinding: { subject: { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "someone" } },
      },
    };
    const created = (await api().createNamespacedCustomObject({ ...PERMISSIONS, namespace: "prod-east", body })) as Obj;
    expect(conditionOf(created, "AppliedRBACManifestWork")).toBeUndefined();
    const applied = await eventually(async () => {
      const cp = await api().getNamespacedCustomObject({ ...PERMISSIONS, namespace: "prod-east", name: "fleetskew" });
      return conditionOf(cp, "AppliedRBACManifestWork");
    });
    expect(applied).toMatchObject({ status: "True", reason: "AppliedManifestWorkComplete" });

    await clientConfig(sim.hubUrl, sim.ca, sim.tokens.admin)
      .makeApiClient(k8s.CoreV1Api)
      .createNamespace({ body: { metadata: { name: "fleetskew" } } });
    await api().createNamespacedCustomObject({ ...PERMISSIONS, namespace: "fleetskew", body });
    const invalid = await eventually(async () =>
      conditionOf(await api().getNamespacedCustomObject({ ...PERMISSIONS, namespace: "fleetskew", name: "fleetskew" }), "Validation"),
    );
    expect(invalid).toMatchObject({ status: "False", reason: "FailedValidationNotInManagedClusterNamespace" });
    const missing = await failure(api().createNamespacedCustomObject({ ...PERMISSIONS, namespace: "no-such-cluster", body }));
    expect(missing.code).toBe(404);
  });

  it("refuses a ClusterPermission or ManagedServiceAccount of the wrong shape with 422, as the CRD schema does", async () => {
    const bad = await failure(
      api().createNamespacedCustomObject({
        ...PERMISSIONS,
        namespace: "prod-east",
        body: { metadata: { name: "bad" }, spec: { clusterRoleBindings: { subject: { kind: "User", name: "x" } } } },
      }),
    );
    expect(bad.code).toBe(422);
    expect(bad.body).toContain("spec.clusterRoleBindings");
    const badRotation = await failure(
      api().createNamespacedCustomObject({
        ...MSAS,
        namespace: "prod-east",
        body: { metadata: { name: "bad" }, spec: { rotation: { validity: "a year" } } },
      }),
    );
    expect(badRotation.code).toBe(422);
    const none = (await api().listNamespacedCustomObject({ ...PERMISSIONS, namespace: "prod-east" })) as List;
    expect(none.items.map((o) => o.metadata.name)).not.toContain("bad");
  });

  it("refuses a binding without a subject, and a ManagedServiceAccount TTL of zero, by the CRDs' own rules", async () => {
    const noSubject = await failure(
      api().createNamespacedCustomObject({
        ...PERMISSIONS,
        namespace: "prod-east",
        body: { metadata: { name: "no-subject" }, spec: { clusterRole: { rules: [] }, clusterRoleBinding: { name: "fleetskew" } } },
      }),
    );
    expect(noSubject.code).toBe(422);
    expect(JSON.parse(noSubject.body).message).toBe(
      'ClusterPermission.rbac.open-cluster-management.io "no-subject" is invalid: spec.clusterRoleBinding: Invalid value: Either subject or subjects has to exist in clusterRoleBinding',
    );
    const ttl = await failure(
      api().createNamespacedCustomObject({
        ...MSAS,
        namespace: "prod-east",
        body: { metadata: { name: "zero-ttl" }, spec: { rotation: {}, ttlSecondsAfterCreation: 0 } },
      }),
    );
    expect(JSON.parse(ttl.body).message).toBe(
      'ManagedServiceAccount.authentication.open-cluster-management.io "zero-ttl" is invalid: spec.ttlSecondsAfterCreation: Invalid value: 0: spec.ttlSecondsAfterCreation in body should be greater than 0',
    );
    const none = (await api().listNamespacedCustomObject({ ...PERMISSIONS, namespace: "prod-east" })) as List;
    expect(none.items.map((o) => o.metadata.name)).not.toContain("no-subject");
  });

  it("waits with a ClusterPermission while the cluster is offline", async () => {
    sim.expireLease("dc-west-0004");
    const body = {
      metadata: { name: "fleetskew" },
      spec: { clusterRole: { rules: [] }, clusterRoleBinding: { subject: { kind: "User", name: "someone" } } },
    };
    await api().createNamespacedCustomObject({ ...PERMISSIONS, namespace: "dc-west-0004", body });
    const pending = await eventually(async () =>
      conditionOf(
        await api().getNamespacedCustomObject({ ...PERMISSIONS, namespace: "dc-west-0004", name: "fleetskew" }),
        "AppliedRBACManifestWork",
      ),
    );
    expect(pending).toMatchObject({ status: "False", reason: "ApplyRBACManifestWorkNotComplete" });
    sim.renewLease("dc-west-0004");
    await eventually(async () => {
      const c = conditionOf(
        await api().getNamespacedCustomObject({ ...PERMISSIONS, namespace: "dc-west-0004", name: "fleetskew" }),
        "AppliedRBACManifestWork",
      );
      return c?.status === "True" ? c : undefined;
    });
  });

  it("reports a ManagedServiceAccount's token in a Secret after the delay, and removes it with the account", async () => {
    await api().createNamespacedCustomObject({
      ...MSAS,
      namespace: "prod-east",
      body: { metadata: { name: "fleetskew" }, spec: { rotation: { enabled: true, validity: "720h0m0s" } } },
    });
    const msa = await eventually(async () => {
      const o = (await api().getNamespacedCustomObject({ ...MSAS, namespace: "prod-east", name: "fleetskew" })) as Obj;
      return o.status?.tokenSecretRef ? o : undefined;
    });
    expect(conditionOf(msa, "TokenReported")).toMatchObject({ status: "True", reason: "TokenReported" });
    expect(conditionOf(msa, "SecretCreated")?.status).toBe("True");
    const core = clientConfig(sim.hubUrl, sim.ca, sim.tokens.reader).makeApiClient(k8s.CoreV1Api);
    const secret = await core.readNamespacedSecret({ namespace: "prod-east", name: "fleetskew" });
    expect(secret.metadata?.labels).toMatchObject({ "authentication.open-cluster-management.io/is-managed-serviceaccount": "true" });
    expect(Buffer.from(secret.data!.token!, "base64").toString()).toMatch(/^sha256~/);
    expect(Buffer.from(secret.data!["ca.crt"]!, "base64").toString()).toBe(sim.ca);
    await api().deleteNamespacedCustomObject({ ...MSAS, namespace: "prod-east", name: "fleetskew" });
    expect((await failure(core.readNamespacedSecret({ namespace: "prod-east", name: "fleetskew" }))).code).toBe(404);
  });
});
