/**
 * The clusters behind a hub's cluster-proxy share its connections (./proxyConnections.ts): the
 * simulated hub's user-server, over HTTPS, counts the TLS connections it accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proxiedCredentials } from "../hubs/sync";
import { startHubSimulator, type HubSimulator } from "../simulator/hub/server";
import { ClusterClient } from "./client";
import type { ClientOptions } from "./clientConfig";
import { sharedProxyCount } from "./proxyConnections";
import { readAlerts, readClusterObjects } from "./readers";

let sim: HubSimulator;

beforeAll(async () => {
  sim = await startHubSimulator({ clusters: 8, seed: 9, permissionDelayMs: 100 });
});
afterAll(async () => {
  await sim?.close();
});

/** The hub's managed clusters the proxy reaches, in the hub's order. */
const reachable = (on: HubSimulator) =>
  on.hub.memberNames().filter((name) => on.hub.member(name)?.backing && !on.hub.tunnelDown(name) && name !== "local-cluster");

/** Clients of the hub's reachable clusters, each with the cluster's own token (which the proxy passes on unchanged). */
function clientsOf(
  count: number,
  tweak: (c: ReturnType<typeof proxiedCredentials>) => ReturnType<typeof proxiedCredentials> = (c) => c,
  on: HubSimulator = sim,
  options?: ClientOptions,
) {
  const r = on.registration();
  const names = reachable(on).slice(0, count);
  expect(names).toHaveLength(count);
  return names.map(
    (name) => new ClusterClient(tweak(proxiedCredentials(r.proxyUrl, name, on.hub.member(name)!.backing!.spec.token, r.proxyCa)), options),
  );
}

/** One sweep's reads of a cluster: its objects and its alerts, between startRead and endRead. */
async function sweep(c: ClusterClient) {
  c.startRead();
  try {
    const objects = await readClusterObjects(c);
    const alerts = await readAlerts(c);
    return { version: objects.clusterVersion.status, alerts: alerts.status };
  } finally {
    c.endRead();
  }
}

describe("connections to a hub's cluster-proxy", () => {
  it("carry every cluster's sweeps, alerts included, as streams of one HTTP/2 connection, closed with the last client", async () => {
    const before = sim.proxyConnections();
    const clients = clientsOf(5);
    try {
      for (let round = 0; round < 2; round++) {
        const swept = await Promise.all(clients.map(sweep));
        expect(swept.map((s) => s.version)).toEqual(Array(5).fill("ok"));
        expect(swept.map((s) => s.alerts)).toEqual(Array(5).fill("ok"));
      }
      const after = sim.proxyConnections();
      // Ten sweeps of five clusters; each used to open a connection of its own, and its alerts' query another.
      expect(after.accepted - before.accepted).toBe(1);
      expect(after.protocols.slice(before.protocols.length)).toEqual(["h2"]);
      // A sweep's end leaves it open for the hub's other clusters.
      expect(after.open).toBe(1);
      expect(sharedProxyCount()).toBe(1);
      clients.slice(1).forEach((c) => c.close());
      expect(sharedProxyCount()).toBe(1);
    } finally {
      clients.forEach((c) => c.close());
    }
    expect(sharedProxyCount()).toBe(0);
    await expect.poll(() => sim.proxyConnections().open).toBe(0);
  });

  it("are not shared between clients that trust the proxy differently", async () => {
    const before = sim.proxyConnections();
    const [trusting] = clientsOf(1);
    const [skipping] = clientsOf(1, (c) => ({ ...c, insecureSkipTlsVerify: true }));
    try {
      expect((await sweep(trusting!)).version).toBe("ok");
      expect((await sweep(skipping!)).version).toBe("ok");
      expect(sharedProxyCount()).toBe(2);
      expect(sim.proxyConnections().accepted - before.accepted).toBe(2);
    } finally {
      trusting!.close();
      skipping!.close();
    }
    expect(sharedProxyCount()).toBe(0);
  });

  it("open another connection when one carries as many streams as the proxy allows, so a cluster that hangs holds up no other", async () => {
    // A user-server that allows 12 streams a connection: one cluster's sweep asks for about twenty at once.
    const narrow = await startHubSimulator({ clusters: 8, seed: 9, permissionDelayMs: 100, proxyMaxStreams: 12 });
    const options: ClientOptions = { timeoutMs: 5_000, retries: 0, retryDelayMs: 10 };
    const [hanging, ...healthy] = clientsOf(3, undefined, narrow, options);
    try {
      // The first client's cluster accepts every request and answers none.
      const cluster = narrow.hub.member(reachable(narrow)[0]!)!;
      narrow.fleet.setFaults(cluster.profile.name, { timeout: true });
      const asked = cluster.backing!.requestCount;
      hanging!.startRead();
      const stuck = readClusterObjects(hanging!).finally(() => hanging!.endRead());
      // Its reads are all out, and none is answered.
      await expect.poll(() => cluster.backing!.requestCount - asked, { timeout: 5_000 }).toBeGreaterThanOrEqual(12);
      const started = performance.now();
      const swept = await Promise.all(healthy.map(sweep));
      const seconds = (performance.now() - started) / 1000;
      expect(swept.map((s) => s.version)).toEqual(["ok", "ok"]);
      // Well within the hung reads' 5 s: queued behind them on one connection, these would have waited for them.
      expect(seconds).toBeLessThan(3);
      expect(narrow.proxyConnections().accepted).toBeGreaterThanOrEqual(2);
      expect((await stuck).clusterVersion.status).toBe("error");
    } finally {
      [hanging, ...healthy].forEach((c) => c!.close());
      await narrow.close();
    }
  });
});
