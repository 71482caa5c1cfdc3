import type http from "node:http";
import { ApiError, badRequest, conflict } from "../apiError";
import {
  apiGroupsOf,
  byListKey,
  decodeContinue,
  encodeContinue,
  listKey,
  parseJson,
  readBody,
  resolveTarget,
  resourceListOf,
  send,
  type Target,
} from "../apiServer";
import { apiVersionOf, type KindInfo } from "../kinds";
import { matchesLabels, parseFieldSelector, parseLabelSelector } from "../selectors";
import { kindKey, type Admit, type KubeObject, type ObjectStore, type WatchEvent } from "../objectStore";
import { applyPatchRequest } from "../patch";
import type { HubIdentity, SimHub } from "./hub";
import { HUB_KIND_LIST, HUB_KINDS } from "./kinds";
import { validateSpec } from "./schemas";
import { admit as admitAtAnyVersion } from "../openapi/admission";
import { tableOf, wantsTable } from "./table";
import { DISCOVERY_RULE, forbiddenMessage, requestAttributes, ruleAllows } from "./rbac";

const notFoundPath = () => new ApiError(404, "NotFound", "the server could not find the requested resource");

/** The request's JSON body; nothing for an empty one. */
async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  return text ? parseJson(text) : undefined;
}

/**
 * The last list served, by kind, namespace, selectors and resourceVersion: paging through 10,000
 * objects asks for the same sorted list once per page, and it cannot have changed while the
 * resourceVersion has not.
 */
let lastList: { key: string; items: KubeObject[]; store: ObjectStore } | undefined;

function sortedList(hub: SimHub, info: KindInfo, namespace: string | undefined, query: URLSearchParams): KubeObject[] {
  const key = JSON.stringify([kindKey(info), namespace, query.get("labelSelector"), query.get("fieldSelector"), hub.store.resourceVersion]);
  if (lastList?.key === key && lastList.store === hub.store) return lastList.items;
  const labels = parseLabelSelector(query.get("labelSelector"));
  const fieldFilter = parseFieldSelector(query.get("fieldSelector"));
  const items = hub.store.list(info, namespace, labels).filter(fieldFilter).sort(byListKey);
  lastList = { key, items, store: hub.store };
  return items;
}

function handleList(
  hub: SimHub,
  res: http.ServerResponse,
  info: KindInfo,
  namespace: string | undefined,
  query: URLSearchParams,
  table = false,
) {
  let rv = hub.store.resourceVersion;
  let items = sortedList(hub, info, namespace, query);
  const token = query.get("continue");
  if (token) {
    const c = decodeContinue(token);
    if (c.rv < hub.store.oldestWatchable - 1)
      throw new ApiError(
        410,
        "Expired",
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
      );
    rv = c.rv;
    items = items.filter((o) => listKey(o) > c.after);
  }
  const limit = Number(query.get("limit") ?? "0");
  const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
  if (Number.isInteger(limit) && limit > 0 && items.length > limit) {
    metadata.continue = encodeContinue({ rv, after: listKey(items[limit - 1]!) });
    metadata.remainingItemCount = items.length - limit;
    items = items.slice(0, limit);
  }
  if (table) return send(res, 200, tableOf(info, items, metadata));
  send(res, 200, { kind: `${info.kind}List`, apiVersion: apiVersionOf(info), metadata, items });
}

function handleWatch(
  hub: SimHub,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  info: KindInfo,
  namespace: string | undefined,
  query: URLSearchParams,
) {
  const labels = parseLabelSelector(query.get("labelSelector"));
  const fieldFilter = parseFieldSelector(query.get("fieldSelector"));
  const key = kindKey(info);
  const wanted = (o: KubeObject) =>
    (namespace === undefined || o.metadata.namespace === namespace) && fieldFilter(o) && matchesLabels(labels, o.metadata.labels);
  res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
  // Headers go out at once, as the API server's do: a client waits for them before it counts the watch as open.
  res.flushHeaders();
  const write = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
  const rvParam = query.get("resourceVersion");
  const since = rvParam && rvParam !== "0" ? Number(rvParam) : null;
  if (since !== null && !Number.isSafeInteger(since)) {
    write("ERROR", badRequest(`invalid resource version: ${rvParam}`).toStatus());
    res.end();
    return;
  }
  const table = wantsTable(req);
  const onEvent = (e: WatchEvent) => {
    if (e.kindKey === key && wanted(e.object)) write(e.type, table ? tableOf(info, [e.object]) : e.object);
  };
  const subscription = hub.store.watch(since ?? hub.store.resourceVersion, onEvent);
  if (since === null) {
    for (const o of hub.store.list(info, namespace, labels)) if (wanted(o)) write("ADDED", table ? tableOf(info, [o]) : o);
  } else if (subscription.backlog === null) {
    // As the API server does: the watch opens, then one ERROR event with 410 Expired, and the stream ends.
    write("ERROR", new ApiError(410, "Expired", `too old resource version: ${since} (${hub.store.oldestWatchable})`).toStatus());
    subscription.stop();
    res.end();
    return;
  } else {
    for (const e of subscription.backlog) onEvent(e);
  }
  // Bookmarks, when asked for: the resourceVersion everything of this watch has been sent up to, now and
  // then and just before the server ends the watch, so that a quiet watch resumes without a 410.
  const bookmarks = query.get("allowWatchBookmarks") === "true";
  const bookmark = () =>
    write("BOOKMARK", {
      kind: info.kind,
      apiVersion: apiVersionOf(info),
      metadata: { resourceVersion: String(hub.store.resourceVersion) },
    });
  const ticker = bookmarks ? setInterval(bookmark, hub.bookmarkIntervalMs) : undefined;
  const timeoutSeconds = Number(query.get("timeoutSeconds") ?? "0");
  const timer =
    timeoutSeconds > 0
      ? setTimeout(() => {
          if (bookmarks) bookmark();
          res.end();
        }, timeoutSeconds * 1000)
      : undefined;
  const finish = () => {
    subscription.stop();
    if (timer) clearTimeout(timer);
    if (ticker) clearInterval(ticker);
  };
  req.on("close", finish);
  res.on("close", finish);
}

function namespaceExists(hub: SimHub, name: string): boolean {
  try {
    hub.store.get(HUB_KINDS.namespace, undefined, name);
    return true;
  } catch {
    return false;
  }
}

/** The fields the hub's CRD schemas dropped, as the API server's warnings (docs/openshift.md §26.2). */
const warningHeader = (warnings: string[]): Record<string, string> =>
  warnings.length ? { warning: warnings.map((w) => `299 - "${w.replace(/"/g, '\\"')}"`).join(", ") } : {};

/** The hub's CRDs do not depend on an OpenShift release: one schema each. */
const admit: Admit = (info, next, old) => admitAtAnyVersion(info, next, old);

async function handleWrite(hub: SimHub, req: http.IncomingMessage, res: http.ServerResponse, target: Target, verb: string) {
  const { info, namespace, name, subresource } = target;
  const store = hub.store;
  if (verb === "create") {
    if (name) throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
    if (namespace !== undefined && !namespaceExists(hub, namespace))
      throw new ApiError(404, "NotFound", `namespaces "${namespace}" not found`, { name: namespace, kind: "namespaces" });
    const body = await readJson(req);
    if (!body || typeof body !== "object" || Array.isArray(body)) throw badRequest("Object 'Kind' is missing in the request body");
    validateSpec(info, body as KubeObject);
    const { object, warnings } = store.create(info, namespace, body as KubeObject, admit);
    hub.afterWrite(info, "create", object);
    return send(res, 201, object, warningHeader(warnings));
  }
  if (!name) throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  let next: KubeObject;
  if (verb === "update") {
    const body = (await readJson(req)) as KubeObject;
    if (!body || typeof body !== "object" || typeof body.metadata !== "object") throw badRequest("metadata: Required value");
    next = body;
  } else if (verb === "patch") {
    const current = store.get(info, namespace, name);
    next = applyPatchRequest(req.headers["content-type"], current, await readJson(req));
  } else if (verb === "delete") {
    const body = (await readJson(req)) as { preconditions?: { resourceVersion?: string } } | undefined;
    if (info === HUB_KINDS.managedCluster && hub.member(name)) {
      // Detaching a cluster: the hub cleans up its namespace before the ManagedCluster goes (finalizer).
      const current = store.get(info, undefined, name);
      const precondition = body?.preconditions?.resourceVersion;
      if (precondition && precondition !== current.metadata.resourceVersion) throw conflict(info.plural, info.group, name);
      hub.deleteCluster(name);
      return send(res, 200, {
        ...current,
        metadata: { ...current.metadata, deletionTimestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z") },
      });
    }
    const deleted = store.delete(info, namespace, name, body?.preconditions?.resourceVersion);
    hub.afterWrite(info, "delete", deleted);
    return send(res, 200, deleted);
  } else throw new ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  if (!next || typeof next !== "object" || Array.isArray(next)) throw badRequest("the patched object is not an object");
  validateSpec(info, next);
  const { object, warnings } = store.replace(info, namespace, name, next, subresource, admit);
  hub.afterWrite(info, subresource ? "status" : "update", object);
  return send(res, 200, object, warningHeader(warnings));
}

const bearer = (req: http.IncomingMessage) => {
  const auth = req.headers.authorization ?? "";
  return auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
};

/** The hub's Kubernetes API: discovery, get/list/watch, create/update/patch/delete, with hub RBAC per token. */
export async function handleHubRequest(hub: SimHub, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "https://hub");
  const segments = url.pathname.split("/").filter(Boolean);
  const p = segments.join("/");
  if (["healthz", "readyz", "livez"].includes(p)) {
    res.writeHead(200, { "content-type": "text/plain" });
    return void res.end("ok");
  }
  if (p === "version")
    return send(res, 200, {
      major: "1",
      minor: "31",
      gitVersion: "v1.31.7",
      platform: "linux/amd64",
      goVersion: "go1.22.12",
      compiler: "gc",
    });

  const identity: HubIdentity | undefined = hub.hubIdentity(bearer(req));
  if (!identity) return send(res, 401, new ApiError(401, "Unauthorized", "Unauthorized").toStatus());

  const method = req.method ?? "GET";
  const request = requestAttributes(method, url.pathname, url.searchParams);
  const allowed = [DISCOVERY_RULE, ...identity.rules].some((rule) => ruleAllows(rule, request));
  if (!allowed) {
    const details =
      request.kind === "resource" ? { name: request.attrs.name, group: request.attrs.group, kind: request.attrs.resource } : undefined;
    return send(res, 403, new ApiError(403, "Forbidden", forbiddenMessage(identity.user, request), details).toStatus());
  }

  if (p === "api")
    return send(res, 200, {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "" }],
    });
  if (p === "apis") return send(res, 200, { kind: "APIGroupList", apiVersion: "v1", groups: apiGroupsOf(HUB_KIND_LIST) });
  if (segments[0] === "apis" && segments.length === 2) {
    const group = apiGroupsOf(HUB_KIND_LIST).find((g) => g.name === segments[1]);
    return group ? send(res, 200, { kind: "APIGroup", apiVersion: "v1", ...group }) : send(res, 404, notFoundPath().toStatus());
  }
  if ((segments[0] === "api" && segments.length === 2) || (segments[0] === "apis" && segments.length === 3)) {
    const list = resourceListOf(HUB_KIND_LIST, segments[0] === "api" ? segments[1]! : `${segments[1]}/${segments[2]}`);
    return list ? send(res, 200, list) : send(res, 404, notFoundPath().toStatus());
  }
  const target = resolveTarget(HUB_KIND_LIST, segments);
  if (!target || request.kind !== "resource") return send(res, 404, notFoundPath().toStatus());
  const verb = request.attrs.verb;
  if (verb === "watch") {
    handleWatch(hub, req, res, target.info, target.namespace, url.searchParams);
    return;
  }
  if (verb === "list") return handleList(hub, res, target.info, target.namespace, url.searchParams, wantsTable(req));
  if (verb === "get") {
    const obj = hub.store.get(target.info, target.namespace, target.name!);
    return send(res, 200, wantsTable(req) && !target.subresource ? tableOf(target.info, [obj]) : obj);
  }
  await handleWrite(hub, req, res, target, verb);
}
