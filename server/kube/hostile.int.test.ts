/**
 * Hostile clusters and hubs, as real HTTPS servers on this machine, against the real client: an
 * endless `continue`, answers and watch lines that never end, redirects on reads and writes. Each is
 * refused with a reason that names what happened, within the limits of server/kube/limits.ts, and
 * nothing is sent anywhere a cluster points.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { servingCertificate, type ServingCertificate } from "../simulator/tls";
import { json, startHostileServer, streamForever, type HostileServer } from "../testing/hostile";
import { ClusterClient, KubeError } from "./client";
import { parseConnectTo } from "./connectTo";
import { testConnection } from "./connection";
import { HUB_KINDS, HubClient } from "./hub";
import { KINDS } from "./kinds";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MAX_ANSWER_BYTES, MAX_LIST_PAGES, MAX_OBJECT_BYTES, MAX_READ_BYTES, MAX_WATCH_LINE_BYTES, processReadBudget } from "./limits";

const MiB = 1024 * 1024;
let tls: ServingCertificate;
const servers: HostileServer[] = [];
const start = async (...args: Parameters<typeof startHostileServer>) => {
  const s = await startHostileServer(args[0], args[1] ?? tls);
  servers.push(s);
  return s;
};
const clusterAt = (s: HostileServer, path = "") =>
  new ClusterClient(
    { server: `${s.url}${path}`, token: "sha256~fleetskew-token", certificateAuthority: s.ca, insecureSkipTlsVerify: false },
    { timeoutMs: 20_000, retries: 2, retryDelayMs: 10 },
  );
const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected a failure"),
    (e: unknown) => e as KubeError,
  );

beforeAll(async () => {
  tls = await servingCertificate(["127.0.0.1", "localhost"]);
});

/** A server whose first answer stops half way and whose connection then goes: the read is tried again and read whole. */
async function cutMidBody(startServer: (handle: Parameters<typeof startHostileServer>[0]) => Promise<HostileServer>) {
  const body = JSON.stringify({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion", metadata: { name: "version" } });
  let answers = 0;
  const server = await startServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(body.length) });
    if (++answers > 1) return res.end(body);
    res.write(body.slice(0, 20));
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const client = clusterAt(server);
  try {
    expect(await client.get(KINDS.clusterVersion, "version")).toMatchObject({ kind: "ClusterVersion", metadata: { name: "version" } });
    expect(server.received).toHaveLength(2);
  } finally {
    client.close();
  }
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => undefined);

describe("a list that never ends", () => {
  it("stops after MAX_LIST_PAGES pages, names the limit, and does not retry", async () => {
    const server = await start((req, res) => {
      const page = Number(new URL(req.url!, "https://x").searchParams.get("continue") ?? 0);
      json(res, 200, { kind: "NodeList", metadata: { continue: String(page + 1) }, items: [{ metadata: { name: `node-${page}` } }] });
    });
    const client = clusterAt(server);
    try {
      const error = await failure(client.list(KINDS.node));
      expect(error).toBeInstanceOf(KubeError);
      expect(error.kind).toBe("too-large");
      expect(error.message).toBe(`the cluster's Node list goes past ${MAX_LIST_PAGES} pages, the most Fleetskew reads in one list`);
      // Every page asked once: a limit is no failure that passes by trying again.
      expect(server.received).toHaveLength(MAX_LIST_PAGES);
    } finally {
      client.close();
    }
  });

  it("stops a hub's list at its item limit", async () => {
    const server = await start((req, res) => {
      const page = Number(new URL(req.url!, "https://x").searchParams.get("continue") ?? 0);
      const items = Array.from({ length: 500 }, (_, i) => ({ metadata: { name: `c-${page}-${i}` } }));
      json(res, 200, { metadata: { continue: String(page + 1), resourceVersion: "7" }, items });
    });
    const hub = new HubClient({ apiUrl: server.url, ca: server.ca, readerToken: "reader" }, 10_000, {
      maxPages: 1_000,
      maxItems: 2_000,
      maxBytes: 64 * MiB,
    });
    try {
      const error = await failure(hub.list(HUB_KINDS.managedCluster));
      expect(error.message).toBe("the hub's ManagedCluster list goes past 2000 objects, the most Fleetskew reads in one list");
      expect(server.received.length).toBe(5);
    } finally {
      hub.close();
    }
  });
});

describe("many lists at once", () => {
  it("share one budget per sweep: together they stop at MAX_READ_BYTES, and a new sweep starts afresh", async () => {
    const padding = "p".repeat(6 * MiB);
    const server = await start((req, res, _r, count) => {
      const page = Number(new URL(req.url!, "https://x").searchParams.get("continue") ?? 0);
      count(padding.length);
      json(res, 200, { metadata: { continue: String(page + 1) }, items: [{ metadata: { name: `o-${page}` }, padding }] });
    });
    const client = clusterAt(server);
    try {
      client.startRead();
      const lists = [KINDS.machineConfigPool, KINDS.machineConfigNode, KINDS.pinnedImageSet].map((kind) => failure(client.list(kind)));
      const errors = await Promise.all(lists);
      const budget = "the cluster's answers to one sweep go past 128 MiB, the most Fleetskew reads from one cluster at a time";
      // The first to cross the line names the budget; the others stop there too (or at their own list limit).
      expect(errors.some((e) => e.message.startsWith(budget))).toBe(true);
      for (const e of errors) expect(e.kind).toBe("too-large");
      // Each list alone would have gone on to MAX_LIST_BYTES; together they stopped near MAX_READ_BYTES.
      expect(server.written()).toBeLessThan(MAX_READ_BYTES + 3 * 6 * MiB + 16 * MiB);
      client.startRead();
      const single = await failure(client.list(KINDS.machineConfigPool));
      expect(single.kind).toBe("too-large");
    } finally {
      client.close();
    }
  });
});

describe("what a read holds", () => {
  it("counts against the process only while its sweep or sync lasts", async () => {
    const server = await start((_req, res) =>
      json(res, 200, { metadata: {}, items: [{ metadata: { name: "a" }, padding: "p".repeat(MiB) }] }),
    );
    const cluster = clusterAt(server);
    const hub = new HubClient({ apiUrl: server.url, ca: server.ca, readerToken: "sha256~reader" });
    const before = processReadBudget.bytes;
    cluster.startRead();
    hub.startRead();
    await cluster.list(KINDS.node);
    await hub.list(HUB_KINDS.managedCluster);
    expect(processReadBudget.bytes - before).toBeGreaterThan(2 * MiB);
    cluster.endRead();
    hub.close();
    expect(processReadBudget.bytes).toBe(before);
    cluster.close();
  });

  it("lets every answer go once it is read: a hundred answers of a megabyte are not held on to", async () => {
    // Collect garbage on demand, to see what is still held rather than what is not yet collected.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const server = await start((_req, res) =>
      json(res, 200, { metadata: {}, items: [{ metadata: { name: "a" }, padding: "p".repeat(MiB) }] }),
    );
    const hub = new HubClient({ apiUrl: server.url, ca: server.ca, readerToken: "sha256~reader" });
    // A Buffer's memory goes back only after its finaliser runs, on a later turn of the event loop:
    // collect until two readings agree, so that the figure is what is held, not what awaits release.
    const settled = async () => {
      let last = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 10; round++) {
        gc();
        await new Promise((resolve) => setTimeout(resolve, 20));
        const now = process.memoryUsage().arrayBuffers;
        if (Math.abs(now - last) < MiB) return now;
        last = now;
      }
      return last;
    };
    const readHundred = async () => {
      for (let i = 0; i < 10; i++) {
        hub.startRead();
        // Only the names are kept, as the sync keeps only what it reads of each object.
        await Promise.all(Array.from({ length: 10 }, () => hub.list(HUB_KINDS.managedCluster, (items) => items.map(() => ({})))));
        hub.endRead();
      }
    };
    try {
      // One round first, so that the connections, TLS sessions and socket buffers that stay for the
      // next read are already there and are not counted as answers held.
      await readHundred();
      const before = await settled();
      await readHundred();
      // Each answer's body was a megabyte; a request's deadline (30 s) once kept them all until it
      // passed, which held more than a hundred MiB here.
      expect((await settled()) - before).toBeLessThan(40 * MiB);
    } finally {
      hub.close();
    }
  });
});

describe("an answer that never ends", () => {
  it("is cut at MAX_ANSWER_BYTES while it arrives, and the memory it costs stays near that", async () => {
    const chunk = Buffer.alloc(256 * 1024, "a");
    const server = await start((_req, res, _r, count) => {
      res.writeHead(200, { "content-type": "application/json" });
      count(1);
      res.write('{"items":["');
      streamForever(res, chunk, count);
    });
    const client = clusterAt(server);
    const before = process.memoryUsage().rss;
    try {
      const error = await failure(client.list(KINDS.machineSet, { namespace: "openshift-machine-api" }));
      expect(error.kind).toBe("too-large");
      expect(error.message).toMatch(
        /^the answer to GET \/apis\/machine\.openshift\.io\/v1beta1\/namespaces\/openshift-machine-api\/machinesets is larger than 32 MiB/,
      );
      // The server could write at most the limit and what the sockets buffer before the client hung up.
      await expect.poll(() => server.received.length).toBe(1);
      expect(server.written()).toBeLessThan(MAX_ANSWER_BYTES + 16 * MiB);
      const grew = (process.memoryUsage().rss - before) / MiB;
      console.log(`an endless answer cost ${Math.round(grew)} MiB of RSS (limit ${MAX_ANSWER_BYTES / MiB} MiB per answer)`);
      expect(grew).toBeLessThan(3 * (MAX_ANSWER_BYTES / MiB));
    } finally {
      client.close();
    }
  });

  it("cuts one object's answer at MAX_OBJECT_BYTES: a ClusterVersion with a 30 MB message is refused as it arrives", async () => {
    const message = "m".repeat(30_000_000);
    const body = JSON.stringify({
      apiVersion: "config.openshift.io/v1",
      kind: "ClusterVersion",
      metadata: { name: "version" },
      status: { conditions: [{ type: "Progressing", status: "True", message }] },
    });
    // Sent without a Content-Length, so the limit is met while the body arrives, not from the header.
    const server = await start((_req, res, _r, count) => {
      res.writeHead(200, { "content-type": "application/json" });
      count(body.length);
      res.end(body);
    });
    const client = clusterAt(server);
    try {
      const error = await failure(client.get(KINDS.clusterVersion, "version"));
      expect(error.kind).toBe("too-large");
      expect(error.message).toMatch(/^the answer to GET \/apis\/config\.openshift\.io\/v1\/clusterversions\/version is larger than 4 MiB/);
      expect(MAX_OBJECT_BYTES).toBeLessThan(body.length);
    } finally {
      client.close();
    }
  });

  it("refuses an answer whose Content-Length is over the limit before reading it", async () => {
    const server = await start((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(MAX_ANSWER_BYTES + 1) });
      res.write("{");
    });
    const client = clusterAt(server);
    try {
      expect((await failure(client.version())).kind).toBe("too-large");
    } finally {
      client.close();
    }
  });

  it("never takes a cut answer for a whole one: the connection closed mid-body is unreachable, tried again, and read whole", () =>
    cutMidBody(start));

  it("closes a watch whose line is longer than MAX_WATCH_LINE_BYTES", async () => {
    const server = await start((req, res, _r, count) => {
      if (!req.url!.includes("watch=true")) return json(res, 200, { metadata: { resourceVersion: "1" }, items: [] });
      res.writeHead(200, { "content-type": "application/json" });
      // One good event, then one that never ends.
      res.write(`${JSON.stringify({ type: "ADDED", object: { metadata: { name: "a", resourceVersion: "2" } } })}\n`);
      res.write('{"type":"ADDED","object":{"metadata":{"name":"');
      streamForever(res, Buffer.alloc(64 * 1024, "b"), count);
    });
    const hub = new HubClient({ apiUrl: server.url, ca: server.ca, readerToken: "reader" });
    const events: string[] = [];
    try {
      const error = await failure(hub.watch(HUB_KINDS.managedCluster, "1", (e) => events.push(e.type), new AbortController().signal));
      expect(error.kind).toBe("too-large");
      expect(error.message).toMatch(/^one event of the watch is larger than 4 MiB/);
      expect(events).toEqual(["ADDED"]);
      expect(server.written()).toBeLessThan(MAX_WATCH_LINE_BYTES + 16 * MiB);
    } finally {
      hub.close();
    }
  });
});

describe("redirects", () => {
  it("a 307 on a PATCH is an error naming the location; the write is sent once and never replayed, there or anywhere", async () => {
    const elsewhere = await start((_req, res) => json(res, 200, {}));
    const cluster = await start((req, res) => {
      if (req.url!.startsWith("/clusters/one/"))
        return res.writeHead(307, { location: `${elsewhere.url}/clusters/two${req.url!.slice("/clusters/one".length)}?token=x` }).end();
      json(res, 200, {});
    });
    const client = clusterAt(cluster, "/clusters/one");
    try {
      const patch = { spec: { bootImageSkewEnforcement: { mode: "Manual" } }, metadata: { resourceVersion: "5" } };
      const error = await failure(client.mergePatch(KINDS.machineConfiguration, "cluster", patch));
      expect(error.kind).toBe("redirected");
      expect(error.message).toBe(
        `PATCH /clusters/one/apis/operator.openshift.io/v1/machineconfigurations/cluster was answered 307, a redirect to ${elsewhere.url}/clusters/two/apis/operator.openshift.io/v1/machineconfigurations/cluster; Fleetskew follows no redirect from a cluster or hub (patch MachineConfiguration cluster)`,
      );
      expect(cluster.received.map((r) => `${r.method} ${r.path}`)).toEqual([
        "PATCH /clusters/one/apis/operator.openshift.io/v1/machineconfigurations/cluster",
      ]);
      expect(JSON.parse(cluster.received[0]!.body)).toEqual(patch);
      expect(elsewhere.received).toEqual([]);
    } finally {
      client.close();
    }
  });

  it("a redirect to another cluster on the same host (a hub's proxy) is not followed either, for reads", async () => {
    const proxy = await start((req, res) => {
      if (req.url!.startsWith("/one/")) return res.writeHead(302, { location: `/two${req.url!.slice(4)}` }).end();
      json(res, 200, { kind: "ClusterVersion", metadata: { name: "version" } });
    });
    const client = clusterAt(proxy, "/one");
    try {
      const error = await failure(client.get(KINDS.clusterVersion, "version"));
      expect(error.kind).toBe("redirected");
      expect(error.message).toContain(`a redirect to ${proxy.url}/two/apis/config.openshift.io/v1/clusterversions/version`);
      // Not retried (a redirect does not pass by asking again), and nothing reached the other cluster.
      expect(proxy.received.map((r) => r.path)).toEqual(["/one/apis/config.openshift.io/v1/clusterversions/version"]);
    } finally {
      client.close();
    }
  });

  it("a connection test of a redirecting server says so, and a hub's watch is not followed", async () => {
    const elsewhere = await start((_req, res) => json(res, 200, { gitVersion: "v1.31.0" }));
    const server = await start((req, res) => res.writeHead(308, { location: `${elsewhere.url}${req.url}` }).end());
    const report = await testConnection({ server: server.url, token: "t", certificateAuthority: server.ca, insecureSkipTlsVerify: false });
    expect(report.reachable).toBe(false);
    expect(report.problem).toMatch(
      /^GET \/version was answered 308, a redirect to https:\/\/127\.0\.0\.1:\d+\/version; Fleetskew follows no redirect/,
    );
    const hub = new HubClient({ apiUrl: server.url, ca: server.ca, readerToken: "reader" });
    try {
      const error = await failure(hub.watch(HUB_KINDS.managedCluster, "1", () => undefined, new AbortController().signal));
      expect(error.kind).toBe("redirected");
      expect((await failure(hub.check())).kind).toBe("redirected");
    } finally {
      hub.close();
    }
    expect(elsewhere.received).toEqual([]);
  });
});

describe("a monitoring Route whose host resolves to this machine", () => {
  it("is refused at connect, unless the operator's FLEETSKEW_CONNECT_TO sends it there", async () => {
    const querier = await start((_req, res) => json(res, 200, { status: "success", data: { alerts: [] } }));
    const port = Number(new URL(querier.url).port);
    const client = new ClusterClient(
      { server: querier.url, token: "sha256~fleetskew-token", certificateAuthority: querier.ca, insecureSkipTlsVerify: false },
      { timeoutMs: 5_000, retries: 0, retryDelayMs: 10 },
    );
    try {
      // "localhost" resolves to a loopback address: the token is never sent (the name check in
      // alertsReader.ts is bypassed here on purpose, to exercise the check at connect).
      const error = await failure(client.routeGet("localhost", "/api/v1/alerts"));
      expect(error.kind).toBe("unreachable");
      expect(error.message).toMatch(
        /^GET https:\/\/localhost\/api\/v1\/alerts was not sent: localhost resolves to (127\.0\.0\.1|::1), a loopback address/,
      );
      expect(querier.received).toEqual([]);
    } finally {
      client.close();
    }
    const mapped = new ClusterClient(
      { server: querier.url, token: "sha256~fleetskew-token", certificateAuthority: querier.ca, insecureSkipTlsVerify: false },
      { timeoutMs: 5_000, retries: 0, retryDelayMs: 10, connectTo: parseConnectTo(`localhost:443:127.0.0.1:${port}`) },
    );
    try {
      expect(await mapped.routeGet("localhost", "/api/v1/alerts")).toEqual({ status: "success", data: { alerts: [] } });
      expect(querier.received.map((r) => [r.path, r.authorization])).toEqual([["/api/v1/alerts", "Bearer sha256~fleetskew-token"]]);
    } finally {
      mapped.close();
    }
  });
});

describe("over HTTP/2, as an API server answers a client that offers it", () => {
  const startH2 = async (handle: Parameters<typeof startHostileServer>[0]) => {
    const s = await startHostileServer(handle, tls, { http2: true });
    servers.push(s);
    return s;
  };

  it("cuts an endless answer at MAX_ANSWER_BYTES while it arrives, and cancels only that stream", async () => {
    const chunk = Buffer.alloc(256 * 1024, "a");
    const server = await startH2((req, res, _r, count) => {
      if (req.url!.endsWith("/clusterversions/version")) return json(res, 200, { kind: "ClusterVersion", metadata: { name: "version" } });
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"items":["');
      streamForever(res, chunk, count);
    });
    const client = clusterAt(server);
    try {
      const [list, one] = await Promise.allSettled([
        client.list(KINDS.machineSet, { namespace: "openshift-machine-api" }),
        client.get(KINDS.clusterVersion, "version"),
      ]);
      expect(list.status === "rejected" && (list.reason as KubeError).kind).toBe("too-large");
      expect(list.status === "rejected" && (list.reason as KubeError).message).toMatch(/machinesets is larger than 32 MiB/);
      // The other stream of the same connection was answered.
      expect(one).toMatchObject({ status: "fulfilled", value: { kind: "ClusterVersion" } });
      expect(server.written()).toBeLessThan(MAX_ANSWER_BYTES + 16 * MiB);
    } finally {
      client.close();
    }
  });

  it("refuses an answer whose Content-Length is over the limit before reading it", async () => {
    const server = await startH2((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(MAX_OBJECT_BYTES + 1) });
      res.write("{");
    });
    const client = clusterAt(server);
    try {
      expect((await failure(client.get(KINDS.clusterVersion, "version"))).kind).toBe("too-large");
    } finally {
      client.close();
    }
  });

  it("never takes a cut answer for a whole one: the connection gone mid-body is unreachable, tried again on a new one, and read whole", () =>
    cutMidBody(startH2));

  it("follows no redirect, and a connection that is not HTTP/2 is asked over HTTP/1.1", async () => {
    const h2 = await startH2((req, res) => res.writeHead(307, { location: `/elsewhere${req.url}` }).end());
    const redirected = clusterAt(h2);
    const h1 = await start((_req, res) => json(res, 200, { kind: "ClusterVersion", metadata: { name: "version" } }));
    const plain = clusterAt(h1);
    try {
      const error = await failure(redirected.get(KINDS.clusterVersion, "version"));
      expect(error.kind).toBe("redirected");
      expect(h2.received).toHaveLength(1);
      expect(await plain.get(KINDS.clusterVersion, "version")).toMatchObject({ kind: "ClusterVersion" });
      expect(await plain.get(KINDS.clusterVersion, "version")).toMatchObject({ kind: "ClusterVersion" });
      expect(h1.received).toHaveLength(2);
    } finally {
      redirected.close();
      plain.close();
    }
  });
});
