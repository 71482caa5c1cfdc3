import { describe, expect, it } from "vitest";
import {
  clusterInfoFacts,
  judgeMember,
  labelsOf,
  sameLabels,
  permissionSubject,
  proxiedFailure,
  type ClusterInfoObject,
  type ManagedClusterObject,
} from "./hubEligibility";

const claims = (over: Record<string, string> = {}) =>
  Object.entries({
    "product.open-cluster-management.io": "OpenShift",
    "controlplanetopology.openshift.io": "HighlyAvailable",
    "id.openshift.io": "6f1d2c3b-8e4a-4b7e-9c2d-1a5f3e7b9d04",
    "platform.open-cluster-management.io": "AWS",
    ...over,
  }).map(([name, value]) => ({ name, value }));

const cluster = (
  over: { claims?: Record<string, string>; available?: string; message?: string; deleting?: boolean; labels?: Record<string, string> } = {},
): ManagedClusterObject => ({
  metadata: {
    name: "store-0042",
    labels: { "cluster.open-cluster-management.io/clusterset": "stores", vendor: "OpenShift", ...over.labels },
    ...(over.deleting ? { deletionTimestamp: "2026-11-24T00:00:00Z" } : {}),
  },
  status: {
    clusterClaims: claims(over.claims),
    conditions: [{ type: "ManagedClusterConditionAvailable", status: over.available ?? "True", message: over.message }],
  },
});
const addOn = (status = "True", message?: string) => ({
  metadata: { name: "cluster-proxy", namespace: "store-0042" },
  status: { conditions: [{ type: "Available", status, message }] },
});
const permission = (status = "True") => ({
  metadata: { name: "fleetskew", namespace: "store-0042" },
  status: { conditions: [{ type: "AppliedRBACManifestWork", status }] },
});

describe("a hub cluster's eligibility: the first check it fails", () => {
  it("is eligible with everything in place, labelled with its hub and cluster set", () => {
    const v = judgeMember("hub-east", cluster(), addOn(), permission());
    expect(v).toMatchObject({ eligibility: "eligible", state: "available", clusterSet: "stores", platform: "AWS", wantsPermission: true });
    expect(v.labels).toEqual({
      "cluster.open-cluster-management.io/clusterset": "stores",
      vendor: "OpenShift",
      "fleetskew.io/hub": "hub-east",
    });
    expect(v.openshiftClusterId).toBe("6f1d2c3b-8e4a-4b7e-9c2d-1a5f3e7b9d04");
  });

  it("checks what the cluster is before whether it can be reached", () => {
    const eks = judgeMember(
      "h",
      cluster({ claims: { "product.open-cluster-management.io": "EKS" }, available: "Unknown" }),
      undefined,
      undefined,
    );
    expect(eks).toMatchObject({ eligibility: "not-openshift", wantsPermission: false });
    expect(eks.reason).toMatch(/runs EKS, not OpenShift/);
    const rosa = judgeMember("h", cluster({ claims: { "product.open-cluster-management.io": "ROSA" } }), addOn(), permission());
    expect(rosa.eligibility).toBe("eligible");
    const hosted = judgeMember("h", cluster({ claims: { "controlplanetopology.openshift.io": "External" } }), addOn(), permission());
    expect(hosted).toMatchObject({ eligibility: "hosted-control-plane", wantsPermission: false });
  });

  it("marks a cluster whose lease expired offline, and one being deleted removed", () => {
    const expired = judgeMember(
      "h",
      cluster({ available: "Unknown", message: "Registration agent stopped updating its lease." }),
      addOn(),
      permission(),
    );
    expect(expired).toMatchObject({ state: "lease-expired", eligibility: "unavailable" });
    expect(expired.reason).toMatch(/stopped updating its lease/);
    expect(judgeMember("h", cluster({ deleting: true }), addOn(), permission())).toMatchObject({
      state: "removed",
      wantsPermission: false,
    });
  });

  it("then the proxy add-on, then Fleetskew's permission", () => {
    expect(judgeMember("h", cluster(), undefined, permission()).reason).toBe("the cluster-proxy add-on is not installed");
    expect(judgeMember("h", cluster(), addOn("False", "Probe failed"), permission())).toMatchObject({
      eligibility: "proxy-addon-unavailable",
      reason: "the cluster-proxy add-on is not available: Probe failed",
    });
    expect(judgeMember("h", cluster(), addOn(), undefined)).toMatchObject({ eligibility: "permissions-pending", wantsPermission: true });
    expect(judgeMember("h", cluster(), addOn(), permission("False")).eligibility).toBe("permissions-pending");
  });

  it("keeps only labels a Fleetskew label can be, and never lets the hub set where a cluster came from", () => {
    const labels = labelsOf(
      { metadata: { labels: { ok: "1", "fleetskew.io/hub": "forged", "bad key!": "x", long: "v".repeat(64) } } },
      "hub-east",
    );
    expect(labels).toEqual({ ok: "1", "fleetskew.io/hub": "hub-east" });
  });

  it("compares labels whatever their order, and sees a value, a key added or a key gone", () => {
    const labels = { name: "store-0042", "cluster.open-cluster-management.io/clusterset": "prod-us", "fleetskew.io/hub": "hub-east" };
    // The order the database gives jsonb keys back in: shorter keys first.
    const reordered = { name: "store-0042", "fleetskew.io/hub": "hub-east", "cluster.open-cluster-management.io/clusterset": "prod-us" };
    expect(sameLabels(labels, reordered)).toBe(true);
    expect(sameLabels(labels, { ...reordered, name: "store-0043" })).toBe(false);
    expect(sameLabels(labels, { ...reordered, env: "prod" })).toBe(false);
    const { name: _gone, ...fewer } = reordered;
    expect(sameLabels(labels, fewer)).toBe(false);
    expect(sameLabels({ a: "1", b: "2" }, { a: "1", c: "2" })).toBe(false);
  });

  it("binds the proxy's identity, without the hub prefix on the hub itself", () => {
    const user = "cluster:hub:system:serviceaccount:fleetskew:fleetskew-hub-proxy";
    expect(permissionSubject("store-0042", { mode: "impersonation", user })).toEqual({
      apiGroup: "rbac.authorization.k8s.io",
      kind: "User",
      name: user,
    });
    expect(permissionSubject("local-cluster", { mode: "impersonation", user }).name).toBe(
      "system:serviceaccount:fleetskew:fleetskew-hub-proxy",
    );
  });

  it("binds the ManagedServiceAccount by kind and API group when the hub does not impersonate", () => {
    expect(permissionSubject("store-0042", { mode: "managed-service-account", account: "fleetskew" })).toEqual({
      apiGroup: "authentication.open-cluster-management.io",
      kind: "ManagedServiceAccount",
      name: "fleetskew",
    });
  });

  it("says what a failure through the proxy means", () => {
    expect(proxiedFailure("the cluster refused the credentials (401) for ClusterVersion version")).toMatch(
      /refused Fleetskew's proxy token/,
    );
    expect(proxiedFailure("the cluster answered 502 for ClusterVersion version: proxy to anp-proxy-server failed")).toMatch(
      /cannot reach this cluster/,
    );
    expect(proxiedFailure('clusterversions is forbidden: User "cluster:hub:x" cannot get')).toMatch(
      /has not applied Fleetskew's ClusterPermission/,
    );
    expect(proxiedFailure("cannot reach the cluster (ECONNREFUSED)")).toBe("cannot reach the cluster (ECONNREFUSED)");
  });
});

describe("on a hub without impersonation (a ManagedServiceAccount per cluster)", () => {
  const accountAddOn = (status = "True") => ({
    metadata: { name: "managed-serviceaccount", namespace: "store-0042" },
    status: { conditions: [{ type: "Available", status, message: status === "True" ? undefined : "agent not ready" }] },
  });
  const account = (reported?: { status: string; message: string }) => ({
    metadata: { name: "fleetskew", namespace: "store-0042" },
    status: { conditions: reported ? [{ type: "TokenReported", status: reported.status, message: reported.message }] : [] },
  });

  it("waits for the managed-serviceaccount add-on before anything else it needs", () => {
    const v = judgeMember("h", cluster(), addOn(), permission(), {
      serviceAccount: { addOn: accountAddOn("False"), account: account(), tokenReported: false },
    });
    expect(v).toMatchObject({ eligibility: "permissions-pending", wantsPermission: true });
    expect(v.reason).toMatch(/managed-serviceaccount add-on is not available.*: agent not ready/);
    expect(
      judgeMember("h", cluster(), addOn(), permission(), { serviceAccount: { addOn: undefined, account: undefined, tokenReported: false } })
        .reason,
    ).toMatch(/managed-serviceaccount add-on is not installed/);
  });

  it("then for the ClusterPermission, then for the token, and says why a token failed", () => {
    const sa = (tokenReported: boolean, reported?: { status: string; message: string }) => ({
      serviceAccount: { addOn: accountAddOn(), account: account(reported), tokenReported },
    });
    expect(judgeMember("h", cluster(), addOn(), permission("False"), sa(true)).reason).toMatch(/ClusterPermission is not applied/);
    expect(judgeMember("h", cluster(), addOn(), permission(), sa(false)).reason).toMatch(/waiting for the cluster to report the token/);
    expect(
      judgeMember("h", cluster(), addOn(), permission(), sa(false, { status: "False", message: "TokenRequest forbidden" })).reason,
    ).toMatch(/could not report the token.*TokenRequest forbidden/);
    expect(judgeMember("h", cluster(), addOn(), permission(), sa(true)).eligibility).toBe("eligible");
  });

  it("explains a 401 as the account's token, which the next sync reads again", () => {
    expect(proxiedFailure("the cluster answered (401)", "managed-service-account")).toMatch(/ManagedServiceAccount \(401\)/);
  });
});

describe("what ManagedClusterInfo says", () => {
  const info = (over: Partial<NonNullable<ClusterInfoObject["status"]>> = {}): ClusterInfoObject => ({
    metadata: { name: "store-0042", namespace: "store-0042" },
    status: {
      distributionInfo: {
        type: "OCP",
        ocp: { version: "4.16.8", desired: { version: "4.17.2" }, desiredVersion: "4.16.8", upgradeFailed: true },
      },
      nodeList: [
        { name: "a", conditions: [{ type: "Ready", status: "True" }] },
        { name: "b", conditions: [{ type: "Ready", status: "False" }] },
      ],
      ...over,
    },
  });

  it("reads the version, the one it moves to (desired over the deprecated field), a failed upgrade and ready nodes", () => {
    expect(clusterInfoFacts(info())).toEqual({ version: "4.16.8", desiredVersion: "4.17.2", upgradeFailed: true, nodes: 2, readyNodes: 1 });
  });

  it("reads nothing from a cluster that is not OpenShift, or that has no info, and nothing odd from a hostile hub", () => {
    expect(clusterInfoFacts(undefined)).toEqual({
      version: null,
      desiredVersion: null,
      upgradeFailed: false,
      nodes: null,
      readyNodes: null,
    });
    expect(clusterInfoFacts(info({ distributionInfo: { type: "UNKNOWN" } })).version).toBeNull();
    const hostile = info({ distributionInfo: { type: "OCP", ocp: { version: "<script>alert(1)</script>" } }, nodeList: "x" as never });
    expect(clusterInfoFacts(hostile)).toMatchObject({ version: null, nodes: null });
  });

  it("lets ManagedClusterInfo say a cluster is OpenShift before its claims are reported", () => {
    const bare: ManagedClusterObject = {
      ...cluster(),
      metadata: { name: "store-0042", labels: {} },
      status: { ...cluster().status, clusterClaims: [] },
    };
    expect(judgeMember("h", bare, addOn(), permission()).eligibility).toBe("not-openshift");
    expect(judgeMember("h", bare, addOn(), permission(), { info: info() }).eligibility).toBe("eligible");
  });
});
