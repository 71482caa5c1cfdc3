/**
 * The hub client against the simulated hub over HTTPS: a watch that fell too far behind is told so
 * (410), which is what makes the follower list again; a watch in step brings the hub's changes.
 */
import { KINDS } from "./kinds";
import { proxiedCredentials } from "../hubs/sync";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHubSimulator, type HubSimulator } from "../simulator/hub/server";
import { ClusterClient, KubeError } from "./client";
import { readAlerts } from "./readers";
import { permissionSubject } from "../domain/hubEligibility";
import { eventually } from "../simulator/hub/testing";
import {
  clusterPermission,
  HUB_KINDS,
  HubClient,
  managedServiceAccount,
  PERMISSION_NAME,
  SERVICE_ACCOUNT_NAME,
  type WatchEvent,
} from "./hub";

let sim: HubSimulator;
let client: HubClient;

beforeAll(async () => {
  sim = await startHubSimulator({ clusters: 6, seed: 9, permissionDelayMs: 100 });
  const r = sim.registration();
  client = new HubClient({ apiUrl: r.hubApiUrl, ca: r.ca, readerToken: r.readerToken });
});
afterAll(async () => {
  client?.close();
  await sim?.close();
});

describe("the hub client", () => {
  it("lists every managed cluster with the version a watch continues from, and the watch brings a change", async () => {
    const listed = await client.list(HUB_KINDS.managedCluster, undefined, 2);
    expect(listed.items).toHaveLength(6);
    expect(listed.resourceVersion).toMatch(/^\d+$/);
    const events: WatchEvent[] = [];
    const stop = new AbortController();
    const watching = client.watch(HUB_KINDS.managedCluster, listed.resourceVersion, (e) => events.push(e), stop.signal);
    sim.expireLease("prod-east");
    await expect
      .poll(() => events.some((e) => e.type === "MODIFIED" && (e.object as { metadata: { name: string } }).metadata.name === "prod-east"))
      .toBe(true);
    stop.abort();
    await watching.catch(() => undefined);
    sim.renewLease("prod-east");
  });

  it("aborts a call the hub never answers at its deadline, closing the connection rather than leaving it open", async () => {
    // A hub that accepts connections and says nothing, not even its side of the TLS handshake.
    let open = 0;
    const silent = net.createServer((socket) => {
      open++;
      socket.on("close", () => open--);
      socket.resume(); // reads (and drops) what the client sends, so it sees the client close
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const r = sim.registration();
    const stuck = new HubClient({ apiUrl: `https://127.0.0.1:${port}`, ca: r.ca, readerToken: r.readerToken }, 300);
    try {
      const started = Date.now();
      await expect(stuck.check()).rejects.toMatchObject({
        kind: "timeout",
        message: "no answer from the hub for ManagedCluster list in time",
      });
      expect(Date.now() - started).toBeLessThan(2_000);
      await expect.poll(() => open, { timeout: 2_000 }).toBe(0);
    } finally {
      stuck.close();
      silent.close();
    }
  });

  it("rejects with 410 when the watch's version is older than the hub keeps, so the caller lists again", async () => {
    const old = (await client.list(HUB_KINDS.managedCluster)).resourceVersion;
    // More changes than the hub keeps events for (1,000 at this size).
    for (let i = 0; i < 600; i++) {
      sim.expireLease("prod-east-422");
      sim.renewLease("prod-east-422");
    }
    const error = await client.watch(HUB_KINDS.managedCluster, old, () => undefined, new AbortController().signal).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeError);
    expect((error as KubeError).status).toBe(410);
    expect((error as KubeError).message).toMatch(/watch expired/);
  });

  it("creates Fleetskew's ClusterPermission once, and deletes it (twice is fine)", async () => {
    const body = clusterPermission(
      "prod-east",
      permissionSubject("prod-east", { mode: "impersonation", user: "cluster:hub:system:serviceaccount:fleetskew:fleetskew-hub-proxy" }),
    );
    expect(await client.createIn(HUB_KINDS.clusterPermission, "prod-east", body)).toBe("created");
    expect(await client.createIn(HUB_KINDS.clusterPermission, "prod-east", body)).toBe("exists");
    const listed = await client.list(HUB_KINDS.clusterPermission);
    expect(listed.items.map((p) => (p as { metadata: { namespace: string } }).metadata.namespace)).toContain("prod-east");
    await client.deleteFrom(HUB_KINDS.clusterPermission, "prod-east", PERMISSION_NAME);
    await client.deleteFrom(HUB_KINDS.clusterPermission, "prod-east", PERMISSION_NAME);
    expect((await client.list(HUB_KINDS.clusterPermission)).items).toHaveLength(0);
  });

  it("through the hub's service path, the querier accepts no hub token, even with Fleetskew's ClusterPermission: the alerts are unknown, with why", async () => {
    const r = sim.registration();
    const through = new ClusterClient(proxiedCredentials(r.proxyUrl, "prod-east", r.proxyToken!, r.proxyCa));
    try {
      const body = clusterPermission("prod-east", permissionSubject("prod-east", { mode: "impersonation", user: r.proxyImpersonatedUser }));
      expect(await client.createIn(HUB_KINDS.clusterPermission, "prod-east", body)).toBe("created");
      // The same identity reads the cluster's API once the permission is applied…
      await eventually(async () => ((await through.get(KINDS.clusterVersion, "version").catch(() => null)) ? true : undefined));
      // …but the service-proxy impersonates only for the API server: the querier reviews the hub token itself.
      const alerts = await readAlerts(through);
      expect(alerts).toMatchObject({ status: "unknown", failure: { at: "querier", status: 401 } });
      expect(alerts.status === "unknown" && alerts.reason).toContain(
        "only a token the cluster itself knows (a ManagedServiceAccount's) is accepted",
      );
    } finally {
      through.close();
      await client.deleteFrom(HUB_KINDS.clusterPermission, "prod-east", PERMISSION_NAME);
    }
  });

  it("creates a ManagedServiceAccount and reads the token Secret the hub reports for it, by its label", async () => {
    expect(await client.createIn(HUB_KINDS.managedServiceAccount, "prod-east", managedServiceAccount("prod-east"))).toBe("created");
    const secrets = await eventually(async () => {
      const found = await client.serviceAccountSecrets();
      return found.length > 0 ? found : undefined;
    });
    expect(secrets.map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)).toEqual(["prod-east/fleetskew"]);
    expect(Buffer.from(secrets[0]!.data!.token!, "base64").toString()).toMatch(/^sha256~/);
    expect(await client.engineVersion()).toBe("2.9.0");
    await client.deleteFrom(HUB_KINDS.managedServiceAccount, "prod-east", SERVICE_ACCOUNT_NAME);
    expect(await client.serviceAccountSecrets()).toHaveLength(0);
  });
});
