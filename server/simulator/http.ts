import http from "node:http";
import http2 from "node:http2";
import type { Duplex } from "node:stream";
import { ApiError, badRequest } from "./apiError";
import {
  apiGroupsOf,
  decodeContinue,
  encodeContinue,
  listKey,
  parseJson,
  readBody,
  resolveTarget,
  resourceListOf,
  send,
  type Target,
} from "./apiServer";
import type { Fleet, SimCluster } from "./cluster";
import { apiVersionOf, kubernetesMinorFor, type KindInfo } from "./kinds";
import { matchesLabels, parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors";
import { kindKey, type Admit, type KubeObject, type WatchEvent } from "./objectStore";
import { IngressAuthority, SIM_INGRESS_DOMAIN } from "./ingress";
import { querierAnswer, querierRouteHost, QUERIER_ROUTE, routerUnavailable, serviceProxy } from "./monitoring";
import { applyPatchRequest } from "./patch";
import { servingCertificate, type ServingCertificate } from "./tls";

const READ_VERBS = new Set(["get", "list", "watch"]);
export const ADMIN_USER = "system:serviceaccount:fleetskew:fleetskew-admin";
export const READER_USER = "system:serviceaccount:fleetskew:fleetskew-reader";

const readJson = async (req: http.IncomingMessage) => parseJson(await readBody(req));

const sendError = (res: http.ServerResponse, error: ApiError) => send(res, error.code, error.toStatus());

function verbFor(method: string, target: Target, watch: boolean): string {
  switch (method) {
    case "GET":
      return target.name ? "get" : watch ? "watch" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return "delete";
    default:
      return method.toLowerCase();
  }
}

function forbidden(user: string, verb: string, target: Target): ApiError {
  const { info, namespace, name, subresource } = target;
  const resource = subresource ? `${info.plural}/${subresource}` : info.plural;
  const subject = `${info.plural}${info.group ? `.${info.group}` : ""}${name ? ` "${name}"` : ""}`;
  const scope = namespace ? `in the namespace "${namespace}"` : "at the cluster scope";
  return new ApiError(
    403,
    "Forbidden",
    `${subject} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${info.group}" ${scope}`,
    {
      name,
      group: info.group,
      kind: info.plural,
    },
  );
}

function handleList(res: http.ServerResponse, cluster: SimCluster, target: Target, query: URLSearchParams) {
  const labels = parseLabelSelector(query.get("labelSelector"));
  const fieldFilter = parseFieldSelector(query.get("fieldSelector"));
  let items = cluster.store.list(target.info, target.namespace, labels).filter(fieldFilter);
  const token = query.get("continue");
  let rv = cluster.store.resourceVersion;
  if (token) {
    const c = decodeContinue(token);
    rv = c.rv;
    items = items.filter((o) => listKey(o) > c.after);
  }
  const limit = Number(query.get("limit") ?? "0");
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (limit > 0 && items.length > limit) {
    metadata.continue = encodeContinue({ rv, after: listKey(items[limit - 1]!) });
    metadata.remainingItemCount = items.length - limit;
    items = items.slice(0, limit);
  }
  send(res, 200, { kind: `${target.info.kind}List`, apiVersion: apiVersionOf(target.info), metadata, items });
}

function handleWatch(req: http.IncomingMessage, res: http.ServerResponse, cluster: SimCluster, target: Target, query: URLSearchParams) {
  const labels = parseLabelSelector(query.get("labelSelector"));
  const fieldFilter = parseFieldSelector(query.get("fieldSelector"));
  const key = kindKey(target.info);
  const wanted = (o: KubeObject) =>
    (target.namespace === undefined || o.metadata.namespace === target.namespace) &&
    (target.name === undefined || o.metadata.name === target.name) &&
    fieldFilter(o) &&
    matchesLabels(labels, o.metadata.labels);

  // No Content-Length: HTTP/1.1 sends the events chunked, HTTP/2 as DATA frames.
  res.writeHead(200, { "content-type": "application/json" });
  // Headers go out at once, as the API server's do: a client waits for them before it counts the watch as open.
  res.flushHeaders();
  const write = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
  const rvParam = query.get("resourceVersion");
  const since = rvParam && rvParam !== "0" ? Number(rvParam) : null;
  const onEvent = (e: WatchEvent) => {
    if (e.kindKey === key && wanted(e.object)) write(e.type, e.object);
  };
  const subscription = cluster.store.watch(since ?? cluster.store.resourceVersion, onEvent);
  if (since === null) {
    for (const o of cluster.store.list(target.info, target.namespace, labels)) if (wanted(o)) write("ADDED", o);
  } else if (subscription.backlog === null) {
    write("ERROR", new ApiError(410, "Expired", `too old resource version: ${since} (${cluster.store.oldestWatchable})`).toStatus());
    subscription.stop();
    res.end();
    return;
  } else {
    for (const e of subscription.backlog) onEvent(e);
  }
  const timeoutSeconds = Number(query.get("timeoutSeconds") ?? "0");
  const timer = timeoutSeconds > 0 ? setTimeout(() => res.end(), timeoutSeconds * 1000) : undefined;
  const finish = () => {
    subscription.stop();
    if (timer) clearTimeout(timer);
  };
  req.on("close", finish);
  res.on("close", finish);
}

/**
 * A strict request's answer to fields the schema does not know (apiserver handlers/create.go and
 * update.go: `transformDecodeError`, 400; handlers/patch.go `applyPatchToCurrentObject`: 422 on the
 * field `patch` with the patched object), each as `unknown field "<path>"` (runtime.strictDecodingError).
 */
function strictDecodingError(info: KindInfo, warnings: string[], patched?: KubeObject): ApiError {
  const detail = `strict decoding error: ${warnings.join(", ")}`;
  if (!patched) return badRequest(`${info.kind} in version ${JSON.stringify(info.version)} cannot be handled as a ${info.kind}: ${detail}`);
  const body = `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${detail}`;
  return new ApiError(422, "Invalid", ` "" is invalid: patch: ${body}`, {
    name: "",
    group: "",
    kind: "",
    causes: [{ reason: "FieldValueInvalid", message: body, field: "patch" }],
  });
}

async function handleWrite(req: http.IncomingMessage, res: http.ServerResponse, cluster: SimCluster, target: Target, verb: string) {
  const { info, namespace, name, subresource } = target;
  const store = cluster.store;
  const counted = `${verb} ${info.kind}${subresource ? `/${subresource}` : ""}`;
  cluster.writeRequests.set(counted, (cluster.writeRequests.get(counted) ?? 0) + 1);
  // fieldValidation (apiserver handlers/rest.go `fieldValidation`: Warn when not given): what a
  // field the schema dropped costs the request — nothing (Ignore), a warning (Warn), or the request (Strict).
  const fieldValidation = new URL(req.url ?? "/", "http://simulator").searchParams.get("fieldValidation") ?? "Warn";
  const warn = (warnings: string[]): Record<string, string> =>
    warnings.length && fieldValidation !== "Ignore" ? { warning: warnings.map((w) => `299 - "${w.replace(/"/g, '\\"')}"`).join(", ") } : {};
  const admitWith =
    (patched?: KubeObject): Admit =>
    (kind, next, old, warnings) => {
      if (fieldValidation === "Strict" && warnings.length) throw strictDecodingError(kind, warnings, patched);
      cluster.admit(kind, next, old, warnings);
    };
  const admit = admitWith();
  if (verb === "create") {
    if (name) throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    const { object, warnings } = store.create(info, namespace, (await readJson(req)) as KubeObject, admit);
    return send(res, 201, object, warn(warnings));
  }
  if (!name) throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  if (verb === "update") {
    const body = (await readJson(req)) as KubeObject;
    if (!body || typeof body !== "object" || typeof body.metadata !== "object") throw badRequest("metadata: Required value");
    const { object, warnings } = store.replace(info, namespace, name, body, subresource, admit);
    return send(res, 200, object, warn(warnings));
  }
  if (verb === "patch") {
    let current = store.get(info, namespace, name);
    const patch = await readJson(req);
    const every = cluster.spec.faults?.concurrentWriteEvery;
    const precondition = (patch as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
    if (every && precondition !== undefined && ++cluster.conditionalPatchCount % every === 0) {
      // Another writer gets there first: the object moves on, and this patch's precondition is stale.
      const annotations = {
        ...current.metadata.annotations,
        "simulator.fleetskew.io/concurrent-write": String(cluster.conditionalPatchCount),
      };
      current = store.replace(info, namespace, name, { ...current, metadata: { ...current.metadata, annotations } }).object;
    }
    const patched = applyPatchRequest(req.headers["content-type"], current, patch);
    const { object, warnings } = store.replace(info, namespace, name, patched, subresource, admitWith(patched));
    return send(res, 200, object, warn(warnings));
  }
  if (verb === "delete") {
    const text = await readBody(req);
    let precondition: string | undefined;
    if (text) {
      try {
        precondition = JSON.parse(text)?.preconditions?.resourceVersion;
      } catch {
        throw badRequest("the body of the request was in an unknown format");
      }
    }
    return send(res, 200, store.delete(info, namespace, name, precondition));
  }
  throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Applies the cluster's fault modes: "done" when the request has been dealt with (or dropped). */
async function applyFaults(
  cluster: SimCluster,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  drop: () => void,
): Promise<"continue" | "done" | "malformed"> {
  const faults = cluster.spec.faults;
  if (!faults) return "continue";
  if (faults.writesOnly && (req.method === "GET" || req.method === "HEAD")) return "continue";
  const n = cluster.requestCount;
  if (faults.flapPeriodMs && Math.floor(Date.now() / faults.flapPeriodMs) % 2 === 1) {
    drop();
    return "done";
  }
  if (faults.timeout) return "done"; // never answered; the client's timeout decides
  if (faults.latencyMs) await sleep(faults.latencyMs);
  if (faults.errorEvery && n % faults.errorEvery === 0) {
    const code = faults.errorStatus ?? 503;
    sendError(
      res,
      new ApiError(
        code,
        code === 503 ? "ServiceUnavailable" : "InternalError",
        code === 503
          ? "the server is currently unable to handle the request"
          : "an error on the server has prevented the request from succeeding",
      ),
    );
    return "done";
  }
  if (faults.malformedEvery && n % faults.malformedEvery === 0) return "malformed";
  return "continue";
}

export type SimulatorServer = {
  server: http2.Http2SecureServer;
  url: string;
  /** PEM of the certificate clients must trust (kubeconfig certificate-authority-data). */
  ca: string;
  /** FLEETSKEW_CONNECT_TO for the clusters' Routes: every name of the simulated ingress domain to this server. */
  connectTo: string;
  close: () => Promise<void>;
};

/**
 * Serves every cluster of `fleet` under /clusters/<name> on one port, over https like a real API
 * server: HTTP/2 to clients that offer it in the TLS handshake, HTTP/1.1 to the others (the API
 * server's Go server does the same).
 */
export function createSimulatorServer(fleet: Fleet, tls: ServingCertificate): http2.Http2SecureServer & { destroyConnections: () => void } {
  const sockets = new Set<Duplex>();
  const server = http2.createSecureServer(
    {
      cert: tls.cert,
      key: tls.key,
      allowHTTP1: true,
      // The API server's default (k8s.io/apiserver pkg/server/secure_serving.go); a client queues streams beyond it.
      settings: { maxConcurrentStreams: 100 },
      // A cluster's ingress names get its wildcard certificate of the ingress CA; anything else the API server's.
      SNICallback: (servername, done) => {
        try {
          done(null, fleet.ingress?.contextFor(servername) ?? undefined);
        } catch (error) {
          done(error as Error);
        }
      },
    },
    (request, response) => {
      // HTTP/2's compatibility API answers with what the handlers use of HTTP/1.1's (headers, url,
      // method, writeHead, write, end, flushHeaders, the socket).
      const req = request as unknown as http.IncomingMessage;
      const res = response as unknown as http.ServerResponse;
      handle(fleet, req, res).catch(failed(res));
    },
  );
  server.on("connection", (s: Duplex) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  const destroyConnections = () => sockets.forEach((s) => s.destroy());
  server.on("close", destroyConnections);
  return Object.assign(server, { destroyConnections });
}

/** The host a request was sent to: HTTP/1.1's Host header, HTTP/2's :authority. */
const hostOf = (req: http.IncomingMessage): string => req.headers.host ?? String(req.headers[":authority"] ?? "");

/** Who a request's bearer token is on `cluster` (its TokenReview): its admin or reader account, or nobody. */
export function userOf(cluster: SimCluster, req: http.IncomingMessage): string | null {
  const auth = req.headers.authorization ?? "";
  const token = auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  if (!token) return null;
  return token === cluster.spec.token ? ADMIN_USER : token === cluster.spec.readOnlyToken ? READER_USER : null;
}

/**
 * The default router of a cluster's ingress: only the Thanos querier's Route (path `/api`) is served;
 * any other host or path gets the router's 503 page, as a host no Route admits does.
 */
function serveRoute(fleet: Fleet, name: string, req: http.IncomingMessage, res: http.ServerResponse) {
  const cluster = fleet.get(name);
  const url = new URL(req.url ?? "/", "https://router");
  const host = hostOf(req).toLowerCase().replace(/:\d+$/, "");
  const onRoute = cluster && host === querierRouteHost(name, fleet.ingress!.domain) && /^\/api(\/|$)/.test(url.pathname);
  let answer = routerUnavailable();
  if (cluster && onRoute && req.method === "GET") {
    cluster.requestCount++;
    const user = userOf(cluster, req);
    // kube-rbac-proxy's SubjectAccessReview: get prometheuses/api "k8s" (cluster-monitoring-view grants it).
    const allowed = !(cluster.spec.forbidden ?? []).some((f) => f.resource === "prometheuses/api" && f.group === "monitoring.coreos.com");
    answer = querierAnswer(cluster.spec.monitoring, url.pathname, user, allowed);
  }
  res.writeHead(answer.status, { "content-type": answer.contentType, "content-length": Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

/** What a request that threw gets: the API server's Status for an ApiError, 500 otherwise. */
const failed = (res: http.ServerResponse) => (error: unknown) => {
  if (error instanceof ApiError) return sendError(res, error);
  if (error instanceof SelectorError) return sendError(res, badRequest(error.message));
  console.error("simulator:", error);
  if (!res.headersSent) sendError(res, new ApiError(500, "InternalError", (error as Error).message));
  else res.end();
};

async function handle(fleet: Fleet, req: http.IncomingMessage, res: http.ServerResponse) {
  const routed = fleet.ingress?.clusterOf(hostOf(req));
  if (routed) return serveRoute(fleet, routed, req, res);
  // A cluster that drops a request closes its connection (HTTP/2: the request's stream).
  return serveApi(fleet, req, res, () => req.socket.destroy());
}

/**
 * Serves a request for `/clusters/<name>/…` in this process, as the hub's cluster-proxy passes it on
 * (./hub/proxy.ts): the answer is written to `res` directly, and `dropped` is what the proxy answers
 * when the cluster closes the connection without answering.
 */
export function serveClusterApi(fleet: Fleet, req: http.IncomingMessage, res: http.ServerResponse, dropped: () => void) {
  serveApi(fleet, req, res, dropped).catch(failed(res));
}

async function serveApi(fleet: Fleet, req: http.IncomingMessage, res: http.ServerResponse, drop: () => void) {
  const url = new URL(req.url ?? "/", "http://simulator");
  const m = /^\/clusters\/([^/]+)(\/.*)?$/.exec(url.pathname);
  if (!m) {
    if (url.pathname === "/" || url.pathname === "/clusters") return send(res, 200, { clusters: fleet.list().map((c) => c.name) });
    return sendError(res, new ApiError(404, "NotFound", "the server could not find the requested resource"));
  }
  const cluster = fleet.get(decodeURIComponent(m[1]!));
  if (!cluster) return sendError(res, new ApiError(404, "NotFound", `no simulated cluster named ${m[1]}`));
  cluster.requestCount++;
  const method = req.method ?? "GET";
  cluster.requestsByMethod.set(method, (cluster.requestsByMethod.get(method) ?? 0) + 1);
  const segments = (m[2] ?? "/").split("/").filter(Boolean);

  const fault = await applyFaults(cluster, req, res, drop);
  if (fault === "done") return;
  const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (fault === "malformed") {
      const text = JSON.stringify(body);
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    }
    return send(res, status, body, headers);
  };

  // Public endpoints, as on OpenShift (system:public-info-viewer).
  if (segments.length === 1 && ["healthz", "readyz", "livez"].includes(segments[0]!)) {
    res.writeHead(200, { "content-type": "text/plain" });
    return res.end("ok");
  }
  if (segments.length === 1 && segments[0] === "version") {
    const kubeMinor = kubernetesMinorFor(cluster.minor);
    return reply(200, {
      major: "1",
      minor: String(kubeMinor),
      gitVersion: `v1.${kubeMinor}.7`,
      gitCommit: "0000000000000000000000000000000000000000",
      gitTreeState: "clean",
      buildDate: "2025-08-01T00:00:00Z",
      goVersion: "go1.23.9",
      compiler: "gc",
      platform: "linux/amd64",
    });
  }

  const user = userOf(cluster, req);
  if (!user) return sendError(res, new ApiError(401, "Unauthorized", "Unauthorized"));

  const p = segments.join("/");
  if (p === "api")
    return reply(200, {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "" }],
    });
  if (p === "apis") return reply(200, { kind: "APIGroupList", apiVersion: "v1", groups: apiGroupsOf(cluster.kinds) });
  if (segments[0] === "apis" && segments.length === 2) {
    const group = apiGroupsOf(cluster.kinds).find((g) => g.name === segments[1]);
    return group
      ? reply(200, { kind: "APIGroup", apiVersion: "v1", ...group })
      : sendError(res, new ApiError(404, "NotFound", "the server could not find the requested resource"));
  }
  if ((segments[0] === "api" && segments.length === 2) || (segments[0] === "apis" && segments.length === 3)) {
    const discovery = resourceListOf(cluster.kinds, segments[0] === "api" ? segments[1]! : `${segments[1]}/${segments[2]}`);
    return discovery
      ? reply(200, discovery)
      : sendError(res, new ApiError(404, "NotFound", "the server could not find the requested resource"));
  }

  // The Thanos querier behind the service proxy (./monitoring.ts), authorized as the API server does: get services/proxy on the named service.
  const proxied = req.method === "GET" ? serviceProxy(cluster.spec.monitoring, segments.map(decodeURIComponent)) : null;
  if (proxied) {
    const name = decodeURIComponent(segments[5]!);
    if ((cluster.spec.forbidden ?? []).some((f) => f.verb === "get" && f.resource === "services/proxy" && f.group === ""))
      return sendError(
        res,
        new ApiError(
          403,
          "Forbidden",
          `services "${name}" is forbidden: User "${user}" cannot get resource "services/proxy" in API group "" in the namespace "openshift-monitoring"`,
          { name, group: "", kind: "services" },
        ),
      );
    if (fault === "malformed") return reply(200, {});
    res.writeHead(proxied.status, { "content-type": proxied.contentType });
    return res.end(proxied.body);
  }

  const target = resolveTarget(cluster.kinds, segments);
  if (!target) return sendError(res, new ApiError(404, "NotFound", "the server could not find the requested resource"));
  const watch = ["true", "1"].includes(url.searchParams.get("watch") ?? "");
  const verb = verbFor(req.method ?? "GET", target, watch);
  if ((user === READER_USER && !READ_VERBS.has(verb)) || cluster.isForbidden(verb, target.info)) {
    return sendError(res, forbidden(user, verb, target));
  }
  if (verb === "watch") return handleWatch(req, res, cluster, target, url.searchParams);
  if (verb === "list") {
    if (cluster.spec.faults?.failingLists?.includes(target.info.plural))
      return sendError(
        res,
        new ApiError(500, "InternalError", "an error on the server has prevented the request from succeeding", {
          group: target.info.group,
          kind: target.info.plural,
        }),
      );
    if (fault === "malformed") return reply(200, { items: cluster.store.list(target.info, target.namespace) });
    return handleList(res, cluster, target, url.searchParams);
  }
  if (
    verb === "get" &&
    cluster.spec.monitoring?.querier === "absent" &&
    target.info.kind === "Route" &&
    target.namespace === QUERIER_ROUTE.namespace &&
    target.name === QUERIER_ROUTE.name
  )
    return sendError(
      res,
      new ApiError(404, "NotFound", `routes.route.openshift.io "${target.name}" not found`, {
        name: target.name,
        group: "route.openshift.io",
        kind: "routes",
      }),
    );
  if (verb === "get")
    return reply(200, withLongMessage(cluster, target.info.kind, cluster.store.get(target.info, target.namespace, target.name!)));
  await handleWrite(req, res, cluster, target, verb);
  fleet.onWrite?.(cluster);
}

/** The answer to a GET of ClusterVersion with its Progressing message padded (Faults.progressingMessageBytes); other objects as stored. */
function withLongMessage(cluster: SimCluster, kind: string, object: KubeObject): KubeObject {
  const bytes = cluster.spec.faults?.progressingMessageBytes;
  if (!bytes || kind !== "ClusterVersion") return object;
  type Condition = { type: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string };
  const status = (object.status ?? {}) as { conditions?: Condition[] };
  const conditions = [...(status.conditions ?? [])];
  const at = conditions.findIndex((c) => c.type === "Progressing");
  const base: Condition = at >= 0 ? conditions[at]! : { type: "Progressing", status: "True", lastTransitionTime: new Date().toISOString() };
  const head = `${base.message ?? ""} `;
  const long = { ...base, message: `${head}${"x".repeat(Math.max(0, bytes - Buffer.byteLength(head)))}` };
  if (at >= 0) conditions[at] = long;
  else conditions.push(long);
  return { ...object, status: { ...status, conditions } };
}

/** Starts the simulator on host:port (0 = any free port). */
export async function startSimulator(
  fleet: Fleet,
  options: { port?: number; host?: string; tls?: ServingCertificate } = {},
): Promise<SimulatorServer> {
  const host = options.host ?? "127.0.0.1";
  const tls = options.tls ?? (await servingCertificate(["localhost", "127.0.0.1", "::1", host]));
  const server = createSimulatorServer(fleet, tls);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as { port: number };
  // Each simulator's clusters have an ingress domain of their own, so several simulators can be told apart in FLEETSKEW_CONNECT_TO.
  fleet.ingress ??= await IngressAuthority.create(`s${address.port}.${SIM_INGRESS_DOMAIN}`);
  return {
    server,
    url: `https://${host.includes(":") ? `[${host}]` : host}:${address.port}`,
    ca: tls.cert,
    connectTo: `*.${fleet.ingress.domain}::${host.includes(":") ? `[${host}]` : host}:${address.port}`,
    // Clients' idle connections are not waited for (an HTTP/2 server's close waits for its sessions).
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.destroyConnections();
      }),
  };
}
