/**
 * A hub older than MCE 2.9 as the source of a fleet: its cluster-proxy does not impersonate, so
 * Fleetskew reaches each cluster with a ManagedServiceAccount of its own (docs/acm.md §4). The
 * simulated hub over HTTPS, the real client, real Postgres, the routes and the collector.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as hubRoute, DELETE as deleteHubRoute } from "@/app/api/v1/hubs/[name]/route";
import { POST as registerHubRoute } from "@/app/api/v1/hubs/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { credentialsOf } from "../clusters/registration";
import { Collector } from "../collector/collector";
import { HUB_KINDS as SIM_KINDS } from "../simulator/hub/kinds";
import { startHubSimulator, type HubSimulator } from "../simulator/hub/server";
import { eventually } from "../simulator/hub/testing";
import { getDb } from "../store/db";
import { findHubRecord } from "../store/hubs";
import { makeDue } from "../store/sweeps";
import { useMigratedDatabase } from "../testing/database";
import { testCollectorOptions } from "../testing/fleet";
import { hubRegistrationBody } from "../testing/hubs";
import { params, request, signIn } from "../testing/routes";
import { followHubs } from "./follow";
import type { HubDetail } from "./contract";
import { syncHub } from "./sync";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let sim: HubSimulator;
let admin: string;

beforeAll(async () => {
  sim = await startHubSimulator({ clusters: 40, seed: 7, permissionDelayMs: 100, serviceAccountDelayMs: 100, mceVersion: "2.7.3" });
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  admin = await signIn("admin", "admin password here");
}, 60_000);
afterAll(() => sim?.close());

const registration = (over: Record<string, unknown> = {}) => hubRegistrationBody(sim, "hub-old", over);
const post = (body: unknown) => registerHubRoute(request("/api/v1/hubs", { method: "POST", cookie: admin, body }));
const hubRecord = async () => (await findHubRecord("hub-old"))!;
const detail = async (): Promise<HubDetail> =>
  (await hubRoute(request("/api/v1/hubs/hub-old", { cookie: admin }), params({ name: "hub-old" }))).json();
const objects = (kind: "managedServiceAccount" | "clusterPermission", ns?: string) => sim.hub.store.list(SIM_KINDS[kind], ns);
const sweep = async (name: string) => {
  await makeDue(name);
  const results = await new Collector(
    testCollectorOptions(`old-hub-${randomBytes(3).toString("hex")}`, {
      concurrency: 4,
      client: { timeoutMs: 20_000, retries: 0, retryDelayMs: 100 },
    }),
  ).runOnce();
  return results.find((r) => r.cluster === name)!;
};

describe("a hub without impersonation", () => {
  it("refuses impersonation on it with the reason, and saves nothing", async () => {
    const refused = await post(registration({ access: "impersonation" }));
    expect(refused.status).toBe(422);
    expect((await refused.json()).error).toMatch(/runs MCE 2\.7\.3.*ManagedServiceAccount access/);
    const missing = await post(registration({ access: "impersonation", proxyToken: undefined }));
    expect(missing.status).toBe(400);
    expect(await getDb().hub.count()).toBe(0);
  });

  it("is registered for ManagedServiceAccount access by itself, and its clusters arrive with one account each", async () => {
    const response = await post(registration());
    expect(response.status).toBe(201);
    expect((await response.json()).hub).toMatchObject({ name: "hub-old", access: "managed-service-account" });
    const registered = await eventually(async () => {
      await syncHub(await hubRecord());
      const n = await getDb().cluster.count({ where: { hubState: "available" } });
      const eligible = (await detail()).clusters.filter((c) => c.eligibility === "eligible").length;
      return n > 0 && n === eligible && eligible >= 30 ? n : undefined;
    }, 30_000);
    const { clusters } = await detail();
    const followed = clusters.filter((c) => c.eligibility === "eligible");
    expect(followed).toHaveLength(registered);
    // Every cluster Fleetskew may follow has its account, and its ClusterPermission binds that account.
    const accounts = new Set(objects("managedServiceAccount").map((a) => a.metadata.namespace));
    for (const c of followed) expect(accounts.has(c.name)).toBe(true);
    const permission = objects("clusterPermission", followed[0]!.name)[0]!;
    expect((permission.spec as { clusterRoleBinding: { subject: unknown } }).clusterRoleBinding.subject).toEqual({
      apiGroup: "authentication.open-cluster-management.io",
      kind: "ManagedServiceAccount",
      name: "fleetskew",
    });
    // A cluster that cannot follow (not OpenShift) gets neither.
    const eks = clusters.find((c) => c.eligibility === "not-openshift")!;
    expect(accounts.has(eks.name)).toBe(false);
    // What the hub's ManagedClusterInfo says comes along.
    expect(followed[0]).toMatchObject({ version: expect.stringMatching(/^4\.\d+\.\d+$/), nodes: expect.any(Number) });
    // The sealed credentials are the account's token, not the hub's proxy token.
    const credentials = await credentialsOf(followed[0]!.name);
    expect(credentials.token).not.toBe(sim.registration().proxyToken);
    expect(credentials.server).toBe(`${sim.proxyUrl}/${followed[0]!.name}`);
  }, 60_000);

  it("sweeps through the proxy with each cluster's own token, and follows a rotation", async () => {
    const name = (await detail()).clusters.find((c) => c.eligibility === "eligible" && c.name !== "local-cluster")!.name;
    expect((await sweep(name)).outcome).toBe("ok");
    const before = (await getDb().cluster.findUniqueOrThrow({ where: { name } })).hubCredentialsVersion;
    // The agent rotates the token and the old one stops working: the sweep says what that means.
    sim.hub.rotateServiceAccountToken(name, "fleetskew", { revokeOld: true });
    const failed = await sweep(name);
    expect(failed.outcome).not.toBe("ok");
    const state = await getDb().cluster.findUniqueOrThrow({ where: { name } });
    expect(state.lastContactError).toMatch(/token of Fleetskew's ManagedServiceAccount \(401\)/);
    // The next sync reads the new token and seals it.
    await syncHub(await hubRecord());
    expect((await getDb().cluster.findUniqueOrThrow({ where: { name } })).hubCredentialsVersion).not.toBe(before);
    expect((await sweep(name)).outcome).toBe("ok");
  }, 60_000);

  it("while following the hub, a rotated token is sealed again without anyone asking", async () => {
    const name = (await detail()).clusters.filter((c) => c.eligibility === "eligible" && c.name !== "local-cluster")[1]!.name;
    const before = (await getDb().cluster.findUniqueOrThrow({ where: { name } })).hubCredentialsVersion;
    const term = followHubs({ termMs: 6_000, debounceMs: 100, retryMs: 1_000 });
    await new Promise((r) => setTimeout(r, 1_000));
    sim.hub.rotateServiceAccountToken(name, "fleetskew", { revokeOld: true });
    await eventually(
      async () => ((await getDb().cluster.findUniqueOrThrow({ where: { name } })).hubCredentialsVersion !== before ? true : undefined),
      4_500,
    );
    await term;
    expect((await sweep(name)).outcome).toBe("ok");
  }, 30_000);

  it("forgets the hub: its accounts and permissions go from the hub", async () => {
    expect(objects("managedServiceAccount").length).toBeGreaterThan(0);
    const response = await deleteHubRoute(
      request("/api/v1/hubs/hub-old", { method: "DELETE", cookie: admin }),
      params({ name: "hub-old" }),
    );
    expect(await response.json()).toMatchObject({ permissionsLeft: null });
    expect(objects("managedServiceAccount")).toHaveLength(0);
    expect(objects("clusterPermission")).toHaveLength(0);
  }, 30_000);
});
