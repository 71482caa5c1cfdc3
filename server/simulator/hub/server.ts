import http2 from "node:http2";
import https from "node:https";
import { stringify } from "yaml";
import type { Duplex } from "node:stream";
import { ApiError, badRequest } from "../apiError";
import { Fleet } from "../cluster";
import { startSimulator, type SimulatorServer } from "../http";
import { SelectorError } from "../selectors";
import { servingCertificate, type ServingCertificate } from "../tls";
import { send } from "../apiServer";
import { handleHubRequest } from "./api";
import { SimHub, type HubMember, type HubMemberInput, type HubOptions, type HubTokens } from "./hub";
import { MCE_NAMESPACE } from "./objects";
import { createProxyHandler } from "./proxy";
import { hubMembers, newMember } from "./scenario";

/** What registering this hub in Fleetskew takes (docs/simulator.md, hub mode). */
export type HubRegistration = {
  /** The hub's Kubernetes API. */
  hubApiUrl: string;
  /** PEM the hub API's serving certificate chains to. */
  ca: string;
  /** Token of the reader service account (list/watch the fleet, create ClusterPermissions). */
  readerToken: string;
  readerUser: string;
  /** The cluster-proxy user-server: `<proxyUrl>/<cluster>/<kube API path>`. */
  proxyUrl: string;
  /** PEM the user-server's certificate chains to (on OpenShift: the service CA). */
  proxyCa: string;
  /** Token of the service account with no hub rights whose identity the proxy impersonates on managed clusters. */
  proxyToken: string;
  /** The user that identity becomes on a managed cluster (the subject a ClusterPermission binds). */
  proxyImpersonatedUser: string;
  /** MultiClusterEngine spec.targetNamespace: where the user-server Service lives on a real hub. */
  mceNamespace: string;
  /** MultiClusterEngine status.currentVersion: before 2.9 the proxy does not impersonate (reach clusters with ManagedServiceAccounts). */
  mceVersion: string;
};

export type HubSimulatorOptions = HubOptions & {
  /** Managed clusters of the standard scenario (hub/scenario.ts); ignored when `members` is given. */
  clusters?: number;
  seed?: number;
  members?: (clusterUrl: (name: string) => string) => HubMemberInput[];
  host?: string;
  hubPort?: number;
  proxyPort?: number;
  clusterPort?: number;
  tls?: ServingCertificate;
  /** How many simulated clusters stay materialized (see Fleet). */
  maxMaterialized?: number;
  /** The user-server's SETTINGS_MAX_CONCURRENT_STREAMS (Go's default, 250, unless a test wants fewer). */
  proxyMaxStreams?: number;
  /** Refresh ManagedClusterInfo from the clusters this often (0: only when `refreshClusterInfo` is called). */
  clusterInfoRefreshMs?: number;
};

export type HubSimulator = {
  hub: SimHub;
  fleet: Fleet;
  /** The simulated clusters' own API (the same clusters the proxy reaches, in this process). */
  clusters: SimulatorServer;
  hubUrl: string;
  proxyUrl: string;
  ca: string;
  tokens: HubTokens;
  registration: () => HubRegistration;
  /**
   * A new OpenShift cluster joins (its objects appear to watchers); with `joinAfterMs` it is first
   * only imported (accepted, not joined, no claims, info or add-ons) and joins after that long.
   */
  addCluster: (name: string, options?: { joinAfterMs?: number }) => HubMember;
  deleteCluster: (name: string) => void;
  expireLease: (name: string) => void;
  renewLease: (name: string) => void;
  setProxyAddOnAvailable: (name: string, available: boolean) => void;
  /** The user-server's TLS connections: accepted so far (with the protocol each agreed on) and open now. */
  proxyConnections: () => { accepted: number; open: number; protocols: string[] };
  /** The ACM agent's periodic refresh of ManagedClusterInfo and version claims, now (one cluster or all). */
  refreshClusterInfo: (name?: string) => void;
  close: () => Promise<void>;
};

function serve(
  tls: ServingCertificate,
  handle: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => unknown,
) {
  const sockets = new Set<Duplex>();
  const server = https.createServer({ cert: tls.cert, key: tls.key }, handle);
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("close", () => sockets.forEach((s) => s.destroy()));
  return server;
}

/**
 * The cluster-proxy user-server: a Go http.Server started with ListenAndServeTLS and no TLSNextProto,
 * so it speaks HTTP/2 to clients that offer it and HTTP/1.1 to the others (cluster-proxy
 * pkg/utils/http_server.go NewProxyHTTPServer, pkg/userserver/user_server.go), with Go's HTTP/2
 * default of 250 concurrent streams a connection (golang.org/x/net/http2 server.go defaultMaxStreams).
 */
function serveProxy(
  tls: ServingCertificate,
  maxConcurrentStreams: number,
  handle: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => unknown,
) {
  const sockets = new Set<Duplex>();
  const server = http2.createSecureServer(
    { cert: tls.cert, key: tls.key, allowHTTP1: true, settings: { maxConcurrentStreams } },
    (req, res) =>
      // HTTP/2's compatibility API answers with what the handler uses of HTTP/1.1's.
      handle(req as unknown as import("node:http").IncomingMessage, res as unknown as import("node:http").ServerResponse),
  );
  const seen = { accepted: 0, protocols: [] as string[] };
  server.on("connection", (s: Duplex) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  server.on("secureConnection", (s: import("node:tls").TLSSocket) => {
    seen.accepted++;
    seen.protocols.push(String(s.alpnProtocol));
  });
  return Object.assign(server, {
    closeAllConnections: () => sockets.forEach((s) => s.destroy()),
    connections: () => ({ accepted: seen.accepted, open: sockets.size, protocols: [...seen.protocols] }),
  });
}

async function listen(server: https.Server | http2.Http2SecureServer, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as { port: number };
  return `https://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

/**
 * Starts a simulated ACM hub: its API on one port, the cluster-proxy user-server on another, and
 * the simulated managed clusters behind the proxy on a third (also reachable directly, as
 * `https://…/clusters/<name>`). All three share one self-signed CA.
 */
export async function startHubSimulator(options: HubSimulatorOptions = {}): Promise<HubSimulator> {
  const host = options.host ?? "127.0.0.1";
  const seed = options.seed ?? 1;
  const tls = options.tls ?? (await servingCertificate(["localhost", "127.0.0.1", "::1", host]));
  const fleet = new Fleet(undefined, options.maxMaterialized);
  const clusters = await startSimulator(fleet, { host, port: options.clusterPort ?? 0, tls });
  const clusterUrl = (name: string) => `${clusters.url}/clusters/${name}`;
  const members = options.members ? options.members(clusterUrl) : hubMembers(options.clusters ?? 20, seed, clusterUrl);
  const hub = new SimHub(fleet, members, { ...options, managedCa: tls.cert });
  if (options.clusterInfoRefreshMs) hub.refreshClusterInfoEvery(options.clusterInfoRefreshMs);

  const hubServer = serve(tls, (req, res) => {
    handleHubRequest(hub, req, res).catch((error) => {
      if (error instanceof ApiError) return send(res, error.code, error.toStatus());
      if (error instanceof SelectorError) return send(res, 400, badRequest(error.message).toStatus());
      console.error("hub simulator:", error);
      if (!res.headersSent) send(res, 500, new ApiError(500, "InternalError", (error as Error).message).toStatus());
      else res.end();
    });
  });
  const proxy = createProxyHandler(hub, fleet);
  const proxyServer = serveProxy(tls, options.proxyMaxStreams ?? 250, (req, res) => {
    try {
      proxy.handler(req, res);
    } catch (error) {
      console.error("hub simulator: proxy:", error);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("Internal Server Error\n");
      else res.destroy();
    }
  });
  const hubUrl = await listen(hubServer, host, options.hubPort ?? 0);
  const proxyUrl = await listen(proxyServer, host, options.proxyPort ?? 0);
  let added = 0;
  const close = (server: { close: (done: () => void) => unknown; closeAllConnections: () => void }) =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // open watches would otherwise hold the server
    });
  return {
    hub,
    fleet,
    clusters,
    hubUrl,
    proxyUrl,
    ca: tls.cert,
    tokens: hub.tokens,
    registration: () => ({
      hubApiUrl: hubUrl,
      ca: tls.cert,
      readerToken: hub.tokens.reader,
      readerUser: "system:serviceaccount:fleetskew:fleetskew-hub-reader",
      proxyUrl,
      proxyCa: tls.cert,
      proxyToken: hub.tokens.proxy,
      proxyImpersonatedUser: "cluster:hub:system:serviceaccount:fleetskew:fleetskew-hub-proxy",
      mceNamespace: MCE_NAMESPACE,
      mceVersion: hub.mceVersion,
    }),
    addCluster: (name, joining) => hub.addCluster(newMember(name, seed, clusterUrl, 950_000 + added++), joining),
    deleteCluster: (name) => hub.deleteCluster(name),
    expireLease: (name) => hub.expireLease(name),
    renewLease: (name) => hub.renewLease(name),
    setProxyAddOnAvailable: (name, available) => hub.setProxyAddOnAvailable(name, available),
    proxyConnections: () => proxyServer.connections(),
    refreshClusterInfo: (name) => hub.refreshClusterInfo(name),
    close: async () => {
      hub.close();
      await Promise.all([close(hubServer), close(proxyServer), clusters.close()]);
    },
  };
}

/**
 * A kubeconfig for looking at a simulated hub with kubectl: `hub` (the reader), `hub-admin`, and
 * `proxy` (the proxy service account through the user-server; pick a cluster with
 * `--server <proxyUrl>/<cluster>` or the `proxy-local-cluster` context).
 */
export function hubKubeconfig(sim: HubSimulator): string {
  const ca = Buffer.from(sim.ca).toString("base64");
  const entries = [
    { name: "hub", server: sim.hubUrl, token: sim.tokens.reader },
    { name: "hub-admin", server: sim.hubUrl, token: sim.tokens.admin },
    { name: "proxy-local-cluster", server: `${sim.proxyUrl}/local-cluster`, token: sim.tokens.proxy },
  ];
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: entries.map((e) => ({ name: e.name, cluster: { server: e.server, "certificate-authority-data": ca } })),
    users: entries.map((e) => ({ name: `${e.name}-user`, user: { token: e.token } })),
    contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: `${e.name}-user` } })),
    "current-context": "hub",
  });
}
