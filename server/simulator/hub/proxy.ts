import type http from "node:http";
import { send } from "../apiServer";
import type { Fleet } from "../cluster";
import { serveClusterApi, userOf } from "../http";
import { querierAnswer } from "../monitoring";
import type { SimHub } from "./hub";
import { allowedBy, type ClusterIdentity } from "./permissions";
import { DISCOVERY_RULE, forbiddenMessage, requestAttributes, ruleAllows } from "./rbac";

/** Plain-text answer, as Go's http.Error writes it (the user-server and service-proxy answer errors this way). */
function text(res: http.ServerResponse, status: number, message: string) {
  const body = `${message}\n`;
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "x-content-type-options": "nosniff",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

const bearer = (req: http.IncomingMessage) => {
  const auth = req.headers.authorization ?? "";
  return auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
};

/** What a kube-apiserver answers a token it does not know. */
const UNAUTHORIZED = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "Unauthorized",
  reason: "Unauthorized",
  code: 401,
};

const isImpersonationHeader = (h: string) => h.startsWith("impersonate-");

/** utilnet.SplitSchemeNamePort: `[scheme:]name[:port]`, scheme http or https. */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | null {
  const parts = id.split(":");
  if (parts.length === 1) return parts[0] ? { scheme: "", name: parts[0], port: "" } : null;
  if (parts.length === 2) return parts[0] ? { scheme: "", name: parts[0], port: parts[1]! } : null;
  if (parts.length === 3 && (parts[0] === "http" || parts[0] === "https") && parts[1])
    return { scheme: parts[0], name: parts[1], port: parts[2]! };
  return null;
}

/**
 * The user-server's service path (cluster-proxy pkg/utils GetTargetServiceConfig, pkg/userserver
 * user_server.go): `/<cluster>/api/v1/namespaces/<ns>/services/<[scheme:]name[:port]>/proxy-service/<path>`
 * reaches `<scheme>://<name>.<ns>.svc:<port>` on the cluster through its tunnel, only for an exposed
 * service (403 otherwise); the service-proxy passes the request, bearer token included, on unchanged
 * (service_proxy.go: authentication only for kubernetes.default.svc). The simulated services: the
 * Thanos querier, whose kube-rbac-proxy reviews the token on the cluster (its own tokens and its
 * ManagedServiceAccounts' are known there, a hub token is not) and asks for `get prometheuses/api`.
 */
function serviceRequest(hub: SimHub, cluster: string, parts: string[], req: http.IncomingMessage, res: http.ServerResponse) {
  const target = splitSchemeNamePort(decodeURIComponent(parts[7]!));
  if (!target) return text(res, 400, `invalid service name "${parts[7]}"`);
  const namespace = parts[5]!;
  if (!hub.exposedServices.some((e) => e.namespace === namespace && e.service === target.name))
    return text(res, 403, `service ${namespace}/${target.name} is not in the exposed services allowlist`);
  const down = hub.tunnelDown(cluster);
  if (down) return text(res, 502, `proxy to anp-proxy-server failed because ${down}`);
  const backing = hub.member(cluster)!.backing!;
  const path = `/${parts.slice(9).join("/").split("?")[0]}`;
  // Only the querier's web port over TLS is there; anything else is a dial the service-proxy cannot make.
  const querier =
    namespace === "openshift-monitoring" &&
    target.name === "thanos-querier" &&
    (target.scheme || "https") === "https" &&
    (target.port === "9091" || target.port === "web");
  if (!querier || target.port === "web")
    return text(res, 502, `dial tcp: lookup ${target.name}.${namespace}.svc${target.port ? `:${target.port}` : ""}: no such host`);
  backing.requestCount++;
  const ownUser = userOf(backing, req);
  const own = ownUser !== null;
  const identity = own ? { user: ownUser, groups: [] } : hub.managedServiceAccountIdentity(cluster, bearer(req));
  const review = {
    kind: "resource" as const,
    attrs: {
      verb: "get",
      group: "monitoring.coreos.com",
      version: "v1",
      resource: "prometheuses",
      subresource: "api",
      namespace,
      name: "k8s",
    },
  };
  const allowed = !!identity && (own || allowedBy(hub.bindingsOn(cluster), identity, review));
  const forbiddenHere = (backing.spec.forbidden ?? []).some(
    (f) => f.resource === "prometheuses/api" && f.group === "monitoring.coreos.com",
  );
  const answer = querierAnswer(backing.spec.monitoring, path, identity?.user ?? null, allowed && !forbiddenHere);
  res.writeHead(answer.status, { "content-type": answer.contentType, "content-length": Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

/**
 * The cluster-proxy user-server (docs/acm.md §2): `/<cluster>/<kube API path>` is forwarded through
 * the cluster's tunnel to its kube-apiserver, here the simulated cluster it runs on. In front of the
 * cluster sits the service-proxy, which authenticates the bearer token in order (cluster-proxy
 * pkg/serviceproxy authentication.go processAuthentication):
 *   1. the managed cluster's own TokenReview: its own tokens and ManagedServiceAccount tokens, forwarded unchanged;
 *   2. the hub's TokenReview: a hub service account is impersonated as `cluster:hub:system:serviceaccount:<ns>:<sa>`
 *      (hub_auth_provider.go ApplyIdentity); on `local-cluster` step 1 already accepts a hub token, so no prefix;
 *   otherwise 401. Before MCE 2.9 there is no step 2 (`mceVersion`): a hub token reaches only `local-cluster`. The user-server itself authorizes nothing: the cluster's RBAC (what ClusterPermissions
 *   applied) decides, so a token whose permissions are not applied yet gets the API server's 403.
 * A cluster whose agent is gone (lease expired, add-on unavailable, detached) answers 502.
 *
 * The simulated clusters run in this process, so a request is handed to the cluster's API handler
 * here, and its answer written straight to the proxy's client: what the real hop through the tunnel
 * and the service-proxy adds is an answer's latency, not what it says. Only a cluster that drops
 * the connection unanswered shows through: the service-proxy's ReverseProxy answers 502 with no body
 * (Go's defaultErrorHandler), which the user-server passes on.
 */
export function createProxyHandler(hub: SimHub, fleet: Fleet) {
  /** Requests in flight per cluster, cut when its tunnel goes away (a watch ends as it would). */
  const open = new Map<string, Set<() => void>>();
  hub.onOffline((cluster) => {
    for (const cut of open.get(cluster) ?? []) cut();
  });

  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const uri = req.url ?? "/";
    const parts = uri.split("/");
    if (parts.length <= 2) return text(res, 400, `requestURL format not correct, path more than 2: ${uri}`);
    let cluster: string;
    try {
      cluster = decodeURIComponent(parts[1]!);
    } catch {
      return text(res, 400, `invalid URL escape in ${uri}`);
    }
    const rest = `/${parts.slice(2).join("/")}`;
    if (parts.length > 9 && parts[8] === "proxy-service") return serviceRequest(hub, cluster, parts, req, res);
    const down = hub.tunnelDown(cluster);
    if (down) return text(res, 502, `proxy to anp-proxy-server failed because ${down}`);
    const backing = hub.member(cluster)!.backing!;

    const token = bearer(req);
    const headers: http.IncomingHttpHeaders = {};
    let check: ClusterIdentity | null = null;
    if (Object.keys(req.headers).some(isImpersonationHeader)) {
      // The service-proxy leaves a client's own impersonation to the target API server.
    } else if (token && (token === backing.spec.token || token === backing.spec.readOnlyToken)) {
      // A token of the cluster itself: forwarded unchanged, the cluster decides.
    } else {
      const msa = hub.managedServiceAccountIdentity(cluster, token);
      const hubUser = msa ? undefined : hub.hubIdentity(token);
      if (msa) check = msa;
      else if (hubUser && !hub.impersonation && !hub.isLocalCluster(cluster)) {
        // Before MCE 2.9 the token goes to the cluster's API server as it came, and the cluster knows no hub token.
        return send(res, 401, UNAUTHORIZED);
      } else if (hubUser) {
        const prefixed = !hub.isLocalCluster(cluster) && hubUser.user.startsWith("system:serviceaccount:");
        check = { user: prefixed ? `cluster:hub:${hubUser.user}` : hubUser.user, groups: hubUser.groups };
        if (prefixed) {
          headers["impersonate-user"] = check.user;
          headers["impersonate-group"] = check.groups;
        }
      } else return text(res, 401, "authentication failed: token is neither valid for managed cluster nor hub cluster");
      // The simulated cluster knows only its own tokens: the cluster's RBAC decision for this identity is made
      // here, and the request goes on with the service-proxy's own credential.
      headers.authorization = `Bearer ${backing.spec.token}`;
    }
    if (check) {
      const url = new URL(rest, "https://cluster");
      const request = requestAttributes(req.method ?? "GET", url.pathname, url.searchParams);
      if (!ruleAllows(DISCOVERY_RULE, request) && !allowedBy(hub.bindingsOn(cluster), check, request)) {
        const details =
          request.kind === "resource" ? { name: request.attrs.name, group: request.attrs.group, kind: request.attrs.resource } : undefined;
        const body = JSON.stringify({
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: forbiddenMessage(check.user, request),
          reason: "Forbidden",
          ...(details ? { details } : {}),
          code: 403,
        });
        res.writeHead(403, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        return res.end(body);
      }
    }

    // The service-proxy's credential and impersonation replace the client's (the cluster decides on them).
    Object.assign(req.headers, headers);
    req.url = `/clusters/${encodeURIComponent(cluster)}${rest}`;
    const cut = () => res.destroy();
    let inFlight = open.get(cluster);
    if (!inFlight) open.set(cluster, (inFlight = new Set()));
    inFlight.add(cut);
    res.on("close", () => {
      inFlight.delete(cut);
      if (inFlight.size === 0) open.delete(cluster);
    });
    serveClusterApi(fleet, req, res, () => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { "content-length": 0 });
      res.end();
    });
  };
  return { handler };
}
