import { actorFor } from "../auth/actor";
/**
 * What a registered hub shows to whom: its name, sync status and counts to everyone signed in; where
 * it is (its API and cluster-proxy URLs, which its clusters' API URLs start with) and who registered it only to admins.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as hubRoute } from "@/app/api/v1/hubs/[name]/route";
import { GET as hubsRoute, POST as registerHubRoute } from "@/app/api/v1/hubs/route";
import { GET as clusterRoute } from "@/app/api/v1/clusters/[name]/route";
import { GET as clustersRoute } from "@/app/api/v1/clusters/route";
import { eventually } from "../simulator/hub/testing";
import { findHubRecord } from "../store/hubs";
import { syncHub } from "./sync";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { addUser } from "../auth/users";
import { startHubSimulator, type HubSimulator } from "../simulator/hub/server";
import { listUsers } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { hubRegistrationBody } from "../testing/hubs";
import { params, request, sessionCookie, signIn } from "../testing/routes";
import { testActor } from "../testing/actors";

process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();
let sim: HubSimulator;
const cookies: Record<string, string> = {};

beforeAll(async () => {
  sim = await startHubSimulator({ clusters: 3, seed: 7 });
  await ensureInitialAccounts({ dataDir: "/nonexistent", adminPassword: "admin password here", demo: false });
  const admin = (await listUsers())[0]!;
  for (const role of ["viewer", "technician", "approver"] as const)
    await addUser({ username: role, role, password: `${role} password here` }, actorFor(admin, null));
  cookies.admin = await signIn("admin", "admin password here");
  for (const role of ["viewer", "technician", "approver"]) cookies[role] = await signIn(role, `${role} password here`);
  const registered = await registerHubRoute(
    request("/api/v1/hubs", { method: "POST", cookie: cookies.admin, body: hubRegistrationBody(sim, "hub-west") }),
  );
  expect(registered.status).toBe(201);
}, 60_000);
afterAll(() => sim?.close());

describe("a hub's URLs and registrant", () => {
  it("are shown to admins, and to nobody else, in the list and the detail", async () => {
    const body = hubRegistrationBody(sim, "hub-west");
    for (const [role, cookie] of Object.entries(cookies)) {
      const list = await hubsRoute(request("/api/v1/hubs", { cookie }));
      const detail = await hubRoute(request("/api/v1/hubs/hub-west", { cookie }), params({ name: "hub-west" }));
      expect([list.status, detail.status], role).toEqual([200, 200]);
      const listed = (await list.json()).hubs[0];
      const text = JSON.stringify(listed) + (await detail.text());
      if (role === "admin") {
        expect(listed).toMatchObject({ name: "hub-west", apiUrl: body.apiUrl, proxyUrl: body.proxyUrl, createdBy: "admin" });
      } else {
        expect(listed, role).toMatchObject({ name: "hub-west", apiUrl: null, proxyUrl: null, createdBy: null });
        expect(text, role).not.toContain(new URL(body.apiUrl).host);
        expect(text, role).not.toContain(new URL(body.proxyUrl).host);
        expect(text, role).not.toContain('"admin"');
      }
      expect(text).not.toContain(body.readerToken);
    }
  });
});

describe("a hub's clusters", () => {
  it("show their API URL (the hub's proxy URL and the cluster's name) to admins only, in the fleet list and the detail", async () => {
    const body = hubRegistrationBody(sim, "hub-west");
    // The first sync creates the ClusterPermissions; a later one registers the clusters the hub applied them on.
    const name = await eventually(async () => {
      await syncHub((await findHubRecord("hub-west"))!);
      const list = await (await clustersRoute(request("/api/v1/clusters?sort=name", { cookie: cookies.admin }))).json();
      return list.clusters[0]?.name as string | undefined;
    }, 30_000);
    for (const [role, cookie] of Object.entries(cookies)) {
      const list = await clustersRoute(request("/api/v1/clusters?sort=name", { cookie }));
      const detail = await clusterRoute(request(`/api/v1/clusters/${name}`, { cookie }), params({ name }));
      expect([list.status, detail.status], role).toEqual([200, 200]);
      const row = (await list.json()).clusters.find((c: { name: string }) => c.name === name);
      const shown = (await detail.json()).cluster;
      if (role === "admin") {
        expect(row.apiUrl).toBe(`${body.proxyUrl}/${name}`);
        expect(shown.apiUrl).toBe(`${body.proxyUrl}/${name}`);
      } else {
        expect([row.apiUrl, shown.apiUrl], role).toEqual([null, null]);
      }
    }
  });
});

describe("a hub's clusters within a reader's reach", () => {
  it("are counted and listed only when followed as a cluster the reader's grants reach", async () => {
    const admins = await (await hubRoute(request("/api/v1/hubs/hub-west", { cookie: cookies.admin }), params({ name: "hub-west" }))).json();
    const followed = (admins.clusters as { name: string; registeredAs: string | null }[]).find((c) => c.registeredAs)!;
    expect(admins.clusters.length).toBeGreaterThan(1);
    const scoped = await sessionCookie(
      (await testActor("one-cluster", "viewer", [{ role: "viewer", scope: `name=${followed.registeredAs}` }])).user,
    );
    const detail = await (await hubRoute(request("/api/v1/hubs/hub-west", { cookie: scoped }), params({ name: "hub-west" }))).json();
    expect(detail.clusters.map((c: { name: string }) => c.name)).toEqual([followed.name]);
    expect(detail.hub.counts.total).toBe(1);
    const listed = (await (await hubsRoute(request("/api/v1/hubs", { cookie: scoped }))).json()).hubs[0];
    expect(listed.counts.total).toBe(1);
    expect(admins.hub.counts.total).toBe(admins.clusters.length);
  });
});
