import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { kubeconfigFor } from "../simulator/kubeconfig";
import { prodEastObjects } from "../simulator/scenarios/prodEast";
import { startTestSimulator } from "../simulator/testing";
import { json, startHostileServer, streamForever } from "../testing/hostile";
import { ClusterClient } from "./client";
import { parseKubeconfig, type ClusterCredentials } from "./credentials";
import { readClusterObjects, readMachineSets, readNodes } from "./readers";
import type { ListLimits } from "./limits";
import { MAX_EVENTS_BETWEEN_READS } from "./watchedCollection";

/*
 * Watched reads (server/kube/watchedCollection.ts) against the simulator's API server over HTTP/2:
 * a steady sweep asks only for what is not watched, gets exactly what lists would have given, and
 * sees changes; whatever goes wrong with a watch makes the next read list again.
 */

let fleet: Fleet;
let sim: SimulatorServer;
let creds: (name: string) => ClusterCredentials;

beforeAll(async () => {
  ({ fleet, sim } = await startTestSimulator());
  // Granted less than docs/rbac.md asks: its ClusterVersion only by name, its nodes listed but not watched.
  fleet.add({
    name: "narrow",
    ocpVersion: "4.19.10",
    token: "narrow-token",
    readOnlyToken: "narrow-reader",
    forbidden: [
      { verb: "list", resource: "clusterversions", group: "config.openshift.io" },
      { verb: "watch", resource: "nodes", group: "" },
    ],
    objects: prodEastObjects,
  });
  const kubeconfig = parseKubeconfig(kubeconfigFor(fleet.list(), sim.url, sim.ca));
  creds = (name) => kubeconfig.credentialsFor(name);
});
afterAll(() => sim.close());

const options = { timeoutMs: 5_000, retries: 0, retryDelayMs: 10 };

/** The API paths (without their query) `cluster` is asked for while `work` runs, watches apart. */
async function pathsDuring<T>(cluster: string, work: () => Promise<T>): Promise<{ result: T; reads: string[]; watches: string[] }> {
  const reads: string[] = [];
  const watches: string[] = [];
  const prefix = `/clusters/${cluster}/`;
  const seen = (req: IncomingMessage) => {
    const url = new URL(req.url ?? "/", "https://simulator");
    if (!url.pathname.startsWith(prefix)) return;
    (url.searchParams.get("watch") ? watches : reads).push(url.pathname.slice(prefix.length - 1));
  };
  sim.server.on("request", seen);
  try {
    return { result: await work(), reads, watches };
  } finally {
    sim.server.off("request", seen);
  }
}

async function sweep(client: ClusterClient) {
  client.startRead();
  try {
    return await readClusterObjects(client);
  } finally {
    client.endRead();
  }
}

/** What one read of the cluster gives without watches: the reference a watched read must match. */
async function listedNow(cluster: string) {
  const client = new ClusterClient(creds(cluster), options);
  try {
    return await sweep(client);
  } finally {
    client.close();
  }
}

const WATCHED_PATHS = [
  "/apis/config.openshift.io/v1/clusterversions",
  "/apis/config.openshift.io/v1/clusteroperators",
  "/apis/config.openshift.io/v1/infrastructures",
  "/apis/operator.openshift.io/v1/machineconfigurations",
  "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets",
  "/apis/machineconfiguration.openshift.io/v1/machineconfigpools",
  "/api/v1/nodes",
  "/apis/config.openshift.io/v1/featuregates",
  "/api/v1/namespaces/openshift-config-managed/configmaps",
];

describe("watched reads", () => {
  it("a steady sweep asks the API server for nothing, and reads what lists would have given", async () => {
    const client = new ClusterClient(creds("prod-east"), { ...options, watchClusters: 100 });
    try {
      const first = await pathsDuring("prod-east", () => sweep(client));
      // The first sweep lists the watched kinds (singletons by name) and starts watching them from the list's version.
      expect(first.reads).toEqual(expect.arrayContaining(WATCHED_PATHS));
      expect(first.watches).toEqual(expect.arrayContaining(WATCHED_PATHS));
      const steady = await pathsDuring("prod-east", () => sweep(client));
      // Every kind is watched, and the kinds this release does not serve are remembered (notServed.ts):
      // only the alerts' query goes out, to the cluster's monitoring Route, not to the API server.
      expect(steady.watches).toEqual([]);
      expect(steady.reads).toEqual([]);
      expect(steady.result).toEqual(await listedNow("prod-east"));
    } finally {
      client.close();
    }
  });

  it("a change to a watched object reaches the next sweep without asking for it, deletions and additions too", async () => {
    const cluster = fleet.get("prod-east")!;
    const info = cluster.kinds.find((k) => k.kind === "MachineSet")!;
    const client = new ClusterClient(creds("prod-east"), { ...options, watchClusters: 100 });
    try {
      await sweep(client);
      const [first] = cluster.store.list(info, "openshift-machine-api");
      cluster.store.replace(info, "openshift-machine-api", first!.metadata.name!, {
        ...first!,
        metadata: { ...first!.metadata, labels: { ...first!.metadata.labels, "fleetskew.test/changed": "yes" } },
      });
      const copy = structuredClone(first!);
      cluster.store.create(info, "openshift-machine-api", {
        ...copy,
        metadata: { name: "aa-watched-addition", namespace: "openshift-machine-api", labels: copy.metadata.labels },
      });
      // The events travel the watch; a sweep after they arrived sees them, and asks for no MachineSets.
      const seen = await vi.waitFor(
        async () => {
          const { result, reads } = await pathsDuring("prod-east", () => sweep(client));
          const sets = result.machineSets.status === "ok" ? result.machineSets.items : [];
          expect(sets.map((s) => s.metadata.name)).toContain("aa-watched-addition");
          expect(sets.find((s) => s.metadata.name === first!.metadata.name)?.metadata.labels?.["fleetskew.test/changed"]).toBe("yes");
          return { result, reads };
        },
        { timeout: 5_000, interval: 50 },
      );
      expect(seen.reads.filter((p) => p.includes("/machinesets"))).toEqual([]);
      expect(seen.result).toEqual(await listedNow("prod-east"));

      cluster.store.delete(info, "openshift-machine-api", "aa-watched-addition");
      await vi.waitFor(
        async () => {
          const sets = await readMachineSets(client);
          expect(sets.status === "ok" && sets.items.map((s) => s.metadata.name)).not.toContain("aa-watched-addition");
        },
        { timeout: 5_000, interval: 50 },
      );
    } finally {
      client.close();
    }
  });

  it("a lost connection makes the next sweep list again and watch anew", async () => {
    const client = new ClusterClient(creds("prod-east-422"), { ...options, watchClusters: 100 });
    try {
      await sweep(client);
      await sweep(client);
      (sim.server as typeof sim.server & { destroyConnections: () => void }).destroyConnections();
      // Between two sweeps the client learns that its connection is gone.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const after = await pathsDuring("prod-east-422", () => sweep(client));
      expect(after.reads).toEqual(expect.arrayContaining(WATCHED_PATHS));
      expect(after.watches).toEqual(expect.arrayContaining(WATCHED_PATHS));
      expect(after.result).toEqual(await listedNow("prod-east-422"));
      const steady = await pathsDuring("prod-east-422", () => sweep(client));
      expect(steady.reads.filter((p) => p.endsWith("/nodes"))).toEqual([]);
    } finally {
      client.close();
    }
  });
});

describe("a cluster behind an ACM hub", () => {
  it("is read every sweep as before: no watch holds a tunnel of the hub's cluster-proxy open", async () => {
    const client = new ClusterClient({ ...creds("prod-east"), reach: "cluster-proxy" }, { ...options, watchClusters: 100 });
    try {
      await sweep(client);
      const steady = await pathsDuring("prod-east", () => sweep(client));
      expect(steady.watches).toEqual([]);
      expect(steady.reads).toEqual(expect.arrayContaining(["/api/v1/nodes", "/apis/config.openshift.io/v1/clusterversions/version"]));
    } finally {
      client.close();
    }
  });
});

describe("a cluster that grants less than docs/rbac.md", () => {
  it("is read as without watches where it must: the ClusterVersion by name, the nodes listed every sweep", async () => {
    const client = new ClusterClient(creds("narrow"), { ...options, watchClusters: 100 });
    try {
      const sweeps = [];
      for (let i = 0; i < 3; i++) sweeps.push(await pathsDuring("narrow", () => sweep(client)));
      for (const { result } of sweeps) {
        expect(result.clusterVersion.status).toBe("ok");
        expect(result.nodes.status).toBe("ok");
      }
      const count = (paths: string[], path: string) => paths.filter((p) => p === path).length;
      // The first sweep learns it may not list the ClusterVersion or watch the nodes; later ones do not ask again.
      expect(sweeps.map((s) => count(s.reads, "/apis/config.openshift.io/v1/clusterversions"))).toEqual([1, 0, 0]);
      expect(sweeps.map((s) => count(s.reads, "/apis/config.openshift.io/v1/clusterversions/version"))).toEqual([1, 1, 1]);
      expect(sweeps.map((s) => count(s.reads, "/api/v1/nodes"))).toEqual([1, 1, 1]);
      expect(sweeps.map((s) => count(s.watches, "/api/v1/nodes"))).toEqual([1, 0, 0]);
      // The rest is watched as usual.
      expect(sweeps.map((s) => count(s.reads, "/apis/machineconfiguration.openshift.io/v1/machineconfigpools"))).toEqual([1, 0, 0]);
      expect(sweeps[2]!.result).toEqual(await listedNow("narrow"));
    } finally {
      client.close();
    }
  });
});

describe("a watch that cannot be trusted is given up, and the kind listed at every read", () => {
  const nodeList = (rv: string) => ({
    kind: "NodeList",
    apiVersion: "v1",
    metadata: { resourceVersion: rv },
    items: [{ metadata: { name: "node-a", resourceVersion: rv } }],
  });

  /** A cluster whose node watch answers with `watchAnswer`; counts the lists. */
  async function clusterWithNodeWatch(
    watchAnswer: (res: import("node:http").ServerResponse, count: (n: number) => void) => void,
    listLimits?: ListLimits,
    http2 = true,
  ) {
    let lists = 0;
    const server = await startHostileServer(
      (req, res, _received, count) => {
        const url = new URL(req.url ?? "/", "https://x");
        if (url.pathname !== "/api/v1/nodes") return json(res, 404, { kind: "Status", code: 404, message: "not here" });
        if (url.searchParams.get("watch")) return watchAnswer(res, count);
        lists++;
        json(res, 200, nodeList("10"));
      },
      undefined,
      { http2 },
    );
    const client = new ClusterClient(
      { server: server.url, certificateAuthority: server.ca, token: "t", insecureSkipTlsVerify: false } as ClusterCredentials,
      { ...options, watchClusters: 100, listLimits },
    );
    const watches = () => server.received.filter((r) => r.path.includes("watch=")).length;
    return { server, client, lists: () => lists, watches };
  }

  /** Three sweeps' reads of the nodes, with `pauseMs` after each for what the watch sends to arrive. */
  async function threeSweeps(client: ClusterClient, pauseMs: number) {
    const reads = [];
    for (let sweep = 0; sweep < 3; sweep++) {
      client.startRead();
      reads.push(await readNodes(client));
      client.endRead();
      if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return reads;
  }

  type Answer = (res: import("node:http").ServerResponse, count: (n: number) => void) => void;
  // [what the watch does, watches asked for in three sweeps]
  const cases: [string, Answer, number][] = [
    ["a line that is not JSON", (res) => res.writeHead(200).write("{not json\n"), 3],
    [
      "an ERROR event (410 Gone)",
      (res) => res.writeHead(200).write(`${JSON.stringify({ type: "ERROR", object: { kind: "Status", code: 410 } })}\n`),
      3,
    ],
    [
      "an object without a name",
      (res) => res.writeHead(200).write(`${JSON.stringify({ type: "ADDED", object: { metadata: { resourceVersion: "11" } } })}\n`),
      3,
    ],
    // Not allowed to watch: listed every sweep, and not asked to watch again for an hour.
    ["a refused watch", (res) => json(res, 403, { kind: "Status", code: 403, message: "no watching" }), 1],
    [
      "more events between two reads than listing would cost",
      (res, count) => {
        res.writeHead(200);
        const events = Array.from({ length: MAX_EVENTS_BETWEEN_READS + 1 }, (_, i) =>
          JSON.stringify({ type: "MODIFIED", object: { metadata: { name: "node-a", resourceVersion: String(11 + i) } } }),
        );
        const body = `${events.join("\n")}\n`;
        count(body.length);
        res.write(body);
      },
      3,
    ],
    ["a line that never ends", (res, count) => (res.writeHead(200), streamForever(res, Buffer.alloc(64 * 1024, "x"), count)), 3],
  ];

  it.each(cases)("%s", async (_name, watchAnswer, watchesAsked) => {
    const { server, client, lists, watches } = await clusterWithNodeWatch(watchAnswer);
    try {
      for (const nodes of await threeSweeps(client, 200))
        expect(nodes.status === "ok" && nodes.items.map((n) => n.metadata.name)).toEqual(["node-a"]);
      expect(lists()).toBe(3);
      expect(watches()).toBe(watchesAsked);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("changes that would make the kept objects larger than a list may be: given up at the read that finds them, listed after", async () => {
    const big = "x".repeat(200_000); // compresses to almost nothing, but parses as 200 KB
    const modified = JSON.stringify({
      type: "MODIFIED",
      object: { metadata: { name: "node-a", resourceVersion: "11", annotations: { big } } },
    });
    const { server, client, lists, watches } = await clusterWithNodeWatch((res) => res.writeHead(200).write(`${modified}\n`), {
      maxPages: 10,
      maxItems: 100,
      maxBytes: 100_000,
    });
    try {
      const annotations = (await threeSweeps(client, 200)).map((nodes) =>
        nodes.status === "ok" ? (nodes.items[0]?.metadata.annotations?.big?.length ?? 0).toString() : nodes.status,
      );
      // The first sweep lists; the second reads the change the watch brought, finds the whole past a
      // list's 100,000 bytes and gives the watch up; the third lists again (and watches anew).
      expect(annotations).toEqual(["0", "200000", "0"]);
      expect(lists()).toBe(2);
      expect(watches()).toBe(2);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("a change in any script is kept whole: read as sent, then again from the kept copy", async () => {
    const note = "Größe: 東京 ✓".repeat(50);
    const modified = JSON.stringify({
      type: "MODIFIED",
      object: { metadata: { name: "node-a", resourceVersion: "11", annotations: { note } } },
    });
    const { server, client, lists } = await clusterWithNodeWatch((res) => res.writeHead(200).write(`${modified}\n`));
    try {
      const notes = (await threeSweeps(client, 100)).map((nodes) =>
        nodes.status === "ok" ? nodes.items[0]?.metadata.annotations?.note : nodes.status,
      );
      expect(notes).toEqual([undefined, note, note]);
      expect(lists()).toBe(1);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("a server that speaks only HTTP/1.1 is listed every sweep and never asked to watch", async () => {
    const { server, client, lists, watches } = await clusterWithNodeWatch((res) => res.writeHead(200).write("\n"), undefined, false);
    try {
      for (const nodes of await threeSweeps(client, 0)) expect(nodes.status).toBe("ok");
      expect([lists(), watches()]).toEqual([3, 0]);
    } finally {
      client.close();
      await server.close();
    }
  });

  it("while the watch keeps quiet, it answers: one list for three sweeps", async () => {
    const { server, client, lists } = await clusterWithNodeWatch((res) => res.writeHead(200).write("\n"));
    try {
      for (const nodes of await threeSweeps(client, 100)) expect(nodes.status).toBe("ok");
      expect(lists()).toBe(1);
    } finally {
      client.close();
      await server.close();
    }
  });
});
