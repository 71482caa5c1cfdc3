import { FLEET_WIDE } from "../domain/grants";
import { actorFor } from "../auth/actor";
/**
 * An ACM hub as the source of a fleet, end to end: the simulated hub (its API, its ClusterPermission
 * controller and its cluster-proxy) over HTTPS, the real Kubernetes client, real Postgres, the routes
 * and the collector. A hub of 1,000 clusters is onboarded with no per-cluster input and swept through
 * the proxy; while the collector runs, one cluster joins, one is deleted and one stops renewing its lease.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as hubRoute, DELETE as deleteHubRoute } from "@/app/api/v1/hubs/[name]/route";
import { GET as hubsRoute, POST as registerHubRoute } from "@/app/api/v1/hubs/route";
import { GET as clustersRoute } from "@/app/api/v1/clusters/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { addUser } from "../auth/users";
import { Collector } from "../collector/collector";
import { resealAll } from "../runtime/secretKeys";
import { fleetPage } from "../fleet/fleetPage";
import { FleetListQuerySchema } from "../fleet/fleetQuery";
import { startHubSimulator, type HubSimulator } from "../simulator/hub/server";
import { eventually } from "../simulator/hub/testing";
import { getDb } from "../store/db";
import { findHubRecord } from "../store/hubs";
import { makeAllDue, makeDue } from "../store/sweeps";
import { listUsers } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { testCollectorOptions } from "../testing/fleet";
import { hubRegistrationBody } from "../testing/hubs";
import { params, request, signIn } from "../testing/routes";
import type { HubDetail } from "./contract";
import { followHubs } from "./follow";
import { syncHub } from "./sync";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
const CLUSTERS = 1_000;
let sim: HubSimulator;
let admin: string;
let viewer: string;

beforeAll(async () => {
  // Few clusters materialized at once: a sweep of 1,000 walks through them all (server/simulator/cluster.ts Fleet).
  sim = await startHubSimulator({ clusters: CLUSTERS, seed: 5, permissionDelayMs: 200, maxMaterialized: 64 });
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  await addUser({ username: "viewer", role: "viewer", password: "viewer password here" }, actorFor((await listUsers())[0]!, null));
  admin = await signIn("admin", "admin password here");
  viewer = await signIn("viewer", "viewer password here");
}, 60_000);
afterAll(() => sim?.close());

const registration = () => hubRegistrationBody(sim, "hub-east", { concurrency: 24 });
const detail = async (): Promise<HubDetail> =>
  (await hubRoute(request("/api/v1/hubs/hub-east", { cookie: viewer }), params({ name: "hub-east" }))).json();
const fleetRows = async (q: Record<string, string>) =>
  fleetPage(FleetListQuerySchema.parse({ limit: "1000", ...q }), { apiUrls: true, reach: FLEET_WIDE });
const hubRecord = async () => (await findHubRecord("hub-east"))!;

describe("registering a hub", () => {
  it("refuses a viewer, a wrong token and a malformed CA, and saves nothing", async () => {
    const post = (body: unknown, cookie = admin) => registerHubRoute(request("/api/v1/hubs", { method: "POST", cookie, body }));
    expect((await post(registration(), viewer)).status).toBe(403);
    const wrongToken = await post({ ...registration(), readerToken: "sha256~not-the-reader" });
    expect(wrongToken.status).toBe(422);
    expect((await wrongToken.json()).error).toMatch(/refused the reader token \(401\)/);
    const badCa = await post({ ...registration(), ca: "not a certificate" });
    expect(badCa.status).toBe(400);
    expect(await getDb().hub.count()).toBe(0);
  });

  it(`onboards a hub of ${CLUSTERS.toLocaleString("en-US")} clusters with no per-cluster input, each ineligible one with its reason`, async () => {
    const response = await registerHubRoute(request("/api/v1/hubs", { method: "POST", cookie: admin, body: registration() }));
    expect(response.status).toBe(201);
    const { hub } = await response.json();
    expect(hub).toMatchObject({ name: "hub-east", proxyUrl: registration().proxyUrl });
    expect(JSON.stringify(hub)).not.toContain(registration().readerToken);
    // The first sync creates a ClusterPermission per reachable cluster; the hub applies them a moment
    // later and the next sync registers the clusters.
    const registered = await eventually(async () => {
      await syncHub(await hubRecord());
      const n = await getDb().cluster.count({ where: { hubState: "available" } });
      return n >= CLUSTERS - 10 ? n : undefined;
    }, 60_000);
    const { clusters } = await detail();
    expect(clusters).toHaveLength(CLUSTERS);
    const byName = new Map(clusters.map((c) => [c.name, c]));
    expect(byName.get("eks-analytics")).toMatchObject({ eligibility: "not-openshift", registeredAs: null });
    expect(byName.get("hcp-tenant-1")).toMatchObject({ eligibility: "hosted-control-plane", registeredAs: null });
    expect(byName.get("edge-no-proxy")).toMatchObject({ eligibility: "proxy-addon-unavailable", clusterSet: "edge" });
    expect(byName.get("edge-no-proxy")!.reason).toMatch(/cluster-proxy add-on is not available/);
    expect(byName.get("local-cluster")).toMatchObject({ eligibility: "eligible", registeredAs: "local-cluster" });
    const eligible = clusters.filter((c) => c.eligibility === "eligible");
    expect(registered).toBe(eligible.length);
    // Labels and cluster sets from the hub, and the hub each cluster came from.
    const some = eligible.find((c) => c.name !== "local-cluster")!;
    const row = (await fleetRows({ q: some.name })).clusters.find((c) => c.name === some.name)!;
    expect(row.labels).toMatchObject({ "fleetskew.io/hub": "hub-east", "cluster.open-cluster-management.io/clusterset": some.clusterSet! });
    expect(row.apiUrl).toBe(`${registration().proxyUrl}/${some.name}`);
    const set = (await fleetRows({ clusterSet: some.clusterSet! })).total;
    expect(set).toBe(eligible.filter((c) => c.clusterSet === some.clusterSet).length);
    // Its credentials are re-sealed with every other secret, and still open afterwards.
    expect((await resealAll()).hubs).toBe(1);
    // A resync of a hub where nothing changed writes no cluster (each write moves the fleet index).
    expect(await syncHub(await hubRecord())).toMatchObject({ registered: 0, changed: 0 });
    const summaries = await (await hubsRoute(request("/api/v1/hubs", { cookie: viewer }))).json();
    expect(summaries.hubs[0].counts).toMatchObject({ total: CLUSTERS, eligible: eligible.length, ineligible: CLUSTERS - eligible.length });
  }, 120_000);

  it("sweeps through the proxy; a cluster added, one deleted and one whose lease expired show within one resync, and no history is lost", async () => {
    await makeAllDue();
    const victims = (await detail()).clusters.filter((c) => c.eligibility === "eligible" && c.name !== "local-cluster");
    const collector = new Collector(
      // Generous timeouts: this runs beside the rest of the suite on two cores.
      testCollectorOptions("hub-sweeper", {
        concurrency: 16,
        clusterTimeoutMs: 30_000,
        client: { timeoutMs: 20_000, retries: 2, retryDelayMs: 200 },
      }),
    );
    const sweeping = collector.runOnce();
    // While it sweeps: the hub changes.
    await eventually(async () => ((await getDb().clusterState.count()) >= 100 ? true : undefined), 60_000);
    // Two clusters swept already (so they have history to keep), in whichever order the sweep took them.
    const [deleted, expired] = (
      await getDb().cluster.findMany({
        where: { state: { isNot: null }, hubState: "available", name: { notIn: ["local-cluster", victims[0]!.name] } },
        select: { name: true },
        orderBy: { name: "asc" },
        take: 2,
      })
    ).map((c) => c.name) as [string, string];
    sim.addCluster("store-new-0001");
    sim.deleteCluster(deleted);
    sim.expireLease(expired);
    // One resync: the new cluster needs its ClusterPermission applied first, then one more.
    await syncHub(await hubRecord());
    await eventually(async () => {
      await syncHub(await hubRecord());
      return (await getDb().cluster.findUnique({ where: { name: "store-new-0001" } }))?.hubState === "available" ? true : undefined;
    }, 30_000);
    const results = await sweeping;
    const ok = results.filter((r) => r.outcome === "ok");
    expect(ok.length).toBeGreaterThan(CLUSTERS * 0.9);
    // Swept through the proxy: the snapshot is the cluster's own.
    const swept = await getDb().clusterState.findFirst({ where: { cluster: { name: victims[0]!.name } }, select: { version: true } });
    expect(swept?.version).toMatch(/^4\.\d+\.\d+$/);

    const offline = (await fleetRows({ offline: "true" })).clusters;
    expect(offline.find((c) => c.name === deleted)).toMatchObject({ hubState: "removed", stale: false });
    expect(offline.find((c) => c.name === expired)).toMatchObject({ hubState: "lease-expired", stale: false });
    expect((await fleetRows({ q: "store-new-0001" })).clusters[0]).toMatchObject({ hubState: "available" });
    // The deleted cluster keeps its history and is not swept again.
    const history = await getDb().clusterFact.count({ where: { cluster: { name: deleted } } });
    expect(history).toBeGreaterThan(0);
    for (const name of [deleted, expired, "store-new-0001", victims[0]!.name]) await makeDue(name);
    const again = await new Collector(
      testCollectorOptions("hub-sweeper-2", { concurrency: 4, client: { timeoutMs: 20_000, retries: 2, retryDelayMs: 200 } }),
    ).runOnce();
    expect(again.map((r) => r.cluster)).not.toContain(deleted);
    expect(again.map((r) => r.cluster)).not.toContain(expired);
    // (Clusters whose sweep failed come due again within seconds, so the second pass holds some of those too.)
    expect(again.map((r) => r.cluster)).toEqual(expect.arrayContaining(["store-new-0001", victims[0]!.name]));
    expect(await getDb().clusterFact.count({ where: { cluster: { name: deleted } } })).toBe(history);
    const audit = await getDb().auditEvent.findMany({ where: { targetId: deleted }, select: { action: true } });
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["cluster.register", "cluster.hub-removed"]));
    // A renewed lease brings it back.
    sim.renewLease(expired);
    await syncHub(await hubRecord());
    expect((await getDb().cluster.findUnique({ where: { name: expired } }))?.hubState).toBe("available");
  }, 240_000);

  it("follows the hub by watching: a new cluster arrives without anyone asking for a sync", async () => {
    // A term long enough for three syncs of the hub's 1,000 clusters beside the rest of the suite on two cores.
    const term = followHubs({ termMs: 20_000, debounceMs: 200, retryMs: 1_000 });
    await new Promise((r) => setTimeout(r, 1_500));
    sim.addCluster("store-new-0002");
    // Its ClusterPermission is created on the first event, applied by the hub 200 ms later, which is another event.
    await eventually(
      async () => ((await getDb().cluster.findUnique({ where: { name: "store-new-0002" } }))?.hubState === "available" ? true : undefined),
      18_000,
    );
    await term;
  }, 60_000);

  it("forgets a hub: its clusters stay, removed, with their history, and its permissions go from the hub", async () => {
    const before = await getDb().cluster.count({ where: { hub: { name: "hub-east" } } });
    expect(
      (await deleteHubRoute(request("/api/v1/hubs/hub-east", { method: "DELETE", cookie: viewer }), params({ name: "hub-east" }))).status,
    ).toBe(403);
    const response = await deleteHubRoute(
      request("/api/v1/hubs/hub-east", { method: "DELETE", cookie: admin }),
      params({ name: "hub-east" }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ clusters: before, permissionsLeft: null });
    expect(await getDb().cluster.count({ where: { hubState: "removed" } })).toBe(before);
    const listed = await (await clustersRoute(request("/api/v1/clusters?offline=true&limit=10", { cookie: viewer }))).json();
    expect(listed.total).toBe(before);
  }, 120_000);
});
