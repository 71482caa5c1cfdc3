/**
 * A hostile ACM hub, as a real HTTPS server on this machine, against the real sync and follower
 * with real Postgres: a malformed claim is set aside with its reason while the rest of the hub
 * syncs; a hub that closes every watch at once, again and again, costs a few relists, not hundreds;
 * a list that never ends fails the sync with the limit named, in words a viewer may read.
 */
import { FLEET_WIDE } from "../domain/grants";
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LIST_PAGES, RELIST_BACKOFF } from "../kube/limits";
import { servingCertificate } from "../simulator/tls";
import { getDb } from "../store/db";
import { findHubRecord, insertHub, listHubMembers, type HubRecord } from "../store/hubs";
import { useMigratedDatabase } from "../testing/database";
import { json, startHostileServer, type HostileServer } from "../testing/hostile";
import { followHubs } from "./follow";
import { sealHubSecrets, syncFailureText, syncHub } from "./sync";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

type Mode = "normal" | "watch-storm" | "endless";
let mode: Mode = "normal";
let hub: HostileServer;
const available = { type: "ManagedClusterConditionAvailable", status: "True", reason: "ManagedClusterAvailable", message: "" };
const managedCluster = (name: string, claims: { name: string; value: unknown }[], labels: Record<string, unknown> = {}) => ({
  apiVersion: "cluster.open-cluster-management.io/v1",
  kind: "ManagedCluster",
  metadata: { name, labels: { vendor: "OpenShift", ...labels } },
  status: { conditions: [available], clusterClaims: [{ name: "product.open-cluster-management.io", value: "OpenShift" }, ...claims] },
});
const CLUSTERS = [
  managedCluster("prod-good", [{ name: "id.openshift.io", value: "6c9c1f2e-0d5e-4a55-9a3f-2f1c0f2a9b10" }]),
  // A claim whose value is a number: before, the whole sync failed on storing it.
  managedCluster("prod-claim", [{ name: "id.openshift.io", value: 42 }]),
  managedCluster("prod-labels", [], { "cluster.open-cluster-management.io/clusterset": ["a", "list"] }),
  // No usable name: nothing to show it as, so it is only left out.
  { ...managedCluster("x", []), metadata: { name: { not: "a string" } } },
];
const NAMES = ["prod-good", "prod-claim", "prod-labels"];
const perNamespace = (name: string, kind: string, conditionType: string) =>
  NAMES.map((ns) => ({ kind, metadata: { name, namespace: ns }, status: { conditions: [{ type: conditionType, status: "True" }] } }));

const lists: Record<string, () => unknown[]> = {
  managedclusters: () => CLUSTERS,
  managedclusteraddons: () => perNamespace("cluster-proxy", "ManagedClusterAddOn", "Available"),
  clusterpermissions: () => perNamespace("fleetskew", "ClusterPermission", "AppliedRBACManifestWork"),
  managedclusterinfos: () => [],
};
let counts = { managedClusterLists: 0, watches: 0 };

function answer(url: URL, res: ServerResponse) {
  const plural = url.pathname.split("/").at(-1)!;
  if (url.searchParams.get("watch") === "true") {
    counts.watches++;
    res.writeHead(200, { "content-type": "application/json" });
    // A storm: every watch ends as soon as it starts. Otherwise it stays open, quiet.
    if (mode === "watch-storm") res.end();
    return;
  }
  if (plural === "managedclusters") counts.managedClusterLists++;
  if (mode === "endless" && plural === "managedclusters") {
    const page = Number(url.searchParams.get("continue") ?? 0);
    return json(res, 200, { metadata: { continue: String(page + 1), resourceVersion: "9" }, items: [] });
  }
  json(res, 200, { metadata: { resourceVersion: "9" }, items: lists[plural]?.() ?? [] });
}

let record: HubRecord;
beforeAll(async () => {
  const tls = await servingCertificate(["127.0.0.1", "localhost"]);
  hub = await startHostileServer((req, res) => {
    const url = new URL(req.url!, "https://hub");
    if (req.method === "GET") return answer(url, res);
    json(res, 201, {});
  }, tls);
  await insertHub(
    {
      name: "hostile",
      apiUrl: hub.url,
      proxyUrl: `${hub.url}/proxy`,
      access: "impersonation",
      concurrency: 4,
      encryptedCredentials: await sealHubSecrets("hostile", {
        ca: hub.ca,
        readerToken: "reader",
        proxyCa: hub.ca,
        proxyToken: "proxy",
        proxyImpersonatedUser: "system:serviceaccount:fleetskew:proxy",
      }),
      createdBy: "admin",
    },
    { actor: "admin", role: "admin" },
  );
  record = (await findHubRecord("hostile"))!;
}, 30_000);
afterAll(() => hub?.close());

describe("a hostile hub", () => {
  it("sets aside a malformed ManagedCluster with its reason, and syncs the rest", async () => {
    mode = "normal";
    const result = await syncHub(record);
    expect(result.registered).toBe(1);
    const members = new Map((await listHubMembers(record.id, FLEET_WIDE)).map((m) => [m.name, m]));
    expect([...members.keys()].sort()).toEqual(["prod-claim", "prod-good", "prod-labels"]);
    expect(members.get("prod-good")).toMatchObject({ eligibility: "eligible", reason: null, registeredAs: "prod-good" });
    expect(members.get("prod-claim")).toMatchObject({
      eligibility: "malformed",
      registeredAs: null,
      reason:
        "the hub's ManagedCluster for it is malformed (status.clusterClaims.1.value: Invalid input: expected string, received number); Fleetskew leaves it as it was until the hub corrects it",
    });
    expect(members.get("prod-labels")?.reason).toMatch(
      /^the hub's ManagedCluster for it is malformed \(metadata\.labels\.cluster\.open-cluster-management\.io\/clusterset: /,
    );
    expect((await getDb().cluster.findMany({ select: { name: true } })).map((c) => c.name)).toEqual(["prod-good"]);
    const row = await getDb().hub.findUnique({ where: { name: "hostile" } });
    expect(row).toMatchObject({ lastSyncStatus: "ok", lastSyncError: null });
  });

  it("a failure of Fleetskew's own is shown only as such, never as the database's words", () => {
    const raw = new Error("Invalid `prisma.cluster.createManyAndReturn()` invocation: hub 1b2c… https://proxy.example/x");
    expect(syncFailureText(record, raw)).toBe(
      "the hub's objects could not be stored (a problem on Fleetskew's side; the server log has the details)",
    );
  });

  it("a list that never ends fails the sync with the limit named, and the hub shows it", async () => {
    mode = "endless";
    await expect(syncHub(record)).rejects.toMatchObject({ kind: "too-large" });
    const row = await getDb().hub.findUnique({ where: { name: "hostile" } });
    expect(row).toMatchObject({
      lastSyncStatus: "error",
      lastSyncError: `the hub's ManagedCluster list goes past ${MAX_LIST_PAGES} pages, the most Fleetskew reads in one list`,
    });
  }, 60_000);

  it("closing every watch at once, again and again, brings a few relists with growing waits, not one per close", async () => {
    mode = "watch-storm";
    counts = { managedClusterLists: 0, watches: 0 };
    const termMs = 8_000;
    await followHubs({ termMs, debounceMs: 200, retryMs: 1_000, lookForNewHubsMs: 60_000 });
    // Waits of [0.8, 1.6), [0.8, 1.6), [1.6, 3.2), [3.2, 6.4) s …: at most five full syncs fit in 8 s.
    console.log(`watch storm: ${counts.managedClusterLists} full syncs and ${counts.watches} watches in ${termMs / 1000} s`);
    expect(counts.managedClusterLists).toBeGreaterThanOrEqual(2);
    expect(counts.managedClusterLists).toBeLessThanOrEqual(5);
    expect(RELIST_BACKOFF.maxMs).toBe(30_000);
  }, 30_000);
});
