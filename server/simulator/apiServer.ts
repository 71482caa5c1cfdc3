import type http from "node:http";
import { ApiError, badRequest } from "./apiError";
import { apiVersionOf, type KindInfo } from "./kinds";
import type { KubeObject } from "./objectStore";

/*
 * What every simulated API server (a cluster's, the hub's) answers alike, as the Kubernetes API
 * server does: JSON bodies, request bodies read up to a limit, discovery and list continue tokens.
 */

const MAX_BODY = 3 * 1024 * 1024;

export function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ApiError(413, "RequestEntityTooLarge", "request entity too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("the body of the request was in an unknown format - accepted media types include: application/json");
  }
}

/** The /apis list: each group of `kinds` with its versions, the first one preferred. */
export function apiGroupsOf(kinds: readonly KindInfo[]) {
  const byGroup = new Map<string, Set<string>>();
  for (const k of kinds) if (k.group) byGroup.set(k.group, (byGroup.get(k.group) ?? new Set()).add(k.version));
  return [...byGroup.entries()].map(([name, versions]) => {
    const list = [...versions].map((version) => ({ groupVersion: `${name}/${version}`, version }));
    return { name, versions: list, preferredVersion: list[0] };
  });
}

/** One group version's APIResourceList, or null when none of `kinds` is served at it. */
export function resourceListOf(kinds: readonly KindInfo[], groupVersion: string) {
  const served = kinds.filter((k) => apiVersionOf(k) === groupVersion);
  if (served.length === 0) return null;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion,
    resources: served.flatMap((k) => [
      {
        name: k.plural,
        singularName: k.singular,
        namespaced: k.namespaced,
        kind: k.kind,
        verbs: ["create", "delete", "get", "list", "patch", "update", "watch"],
        ...(k.shortNames ? { shortNames: k.shortNames } : {}),
      },
      ...(k.status
        ? [{ name: `${k.plural}/status`, singularName: "", namespaced: k.namespaced, kind: k.kind, verbs: ["get", "patch", "update"] }]
        : []),
    ]),
  };
}

/** What a request's path names: a kind, and in it a namespace, an object and its status. */
export type Target = { info: KindInfo; namespace?: string; name?: string; subresource?: "status" };

/** The target of `/api/v1/…` or `/apis/<group>/<version>/…` among `kinds`; null for any other path. */
export function resolveTarget(kinds: readonly KindInfo[], segments: string[]): Target | null {
  let groupVersion: string;
  let rest: string[];
  if (segments[0] === "api" && segments[1] === "v1") {
    groupVersion = "v1";
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 4) {
    groupVersion = `${segments[1]}/${segments[2]}`;
    rest = segments.slice(3);
  } else return null;
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, sub, ...extra] = rest;
  if (!plural || extra.length > 0 || (sub !== undefined && sub !== "status")) return null;
  const info = kinds.find((k) => apiVersionOf(k) === groupVersion && k.plural === plural);
  if (!info || (namespace !== undefined && !info.namespaced)) return null;
  return { info, namespace, name, subresource: sub as "status" | undefined };
}

/** Continue tokens carry the list's resourceVersion and the last key served; keys compare by code point. */
export type Continue = { rv: number; after: string };
export const encodeContinue = (c: Continue) => Buffer.from(JSON.stringify(c)).toString("base64url");
export function decodeContinue(token: string): Continue {
  try {
    const c = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    if (typeof c.rv === "number" && typeof c.after === "string") return c;
  } catch {
    /* fall through */
  }
  throw badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
}
/** A listed object's key: namespace/name. */
export const listKey = (o: KubeObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name}`;
/** Listed objects in key order, by code point as the continue tokens compare them. */
export const byListKey = (a: KubeObject, b: KubeObject) => (listKey(a) < listKey(b) ? -1 : listKey(a) > listKey(b) ? 1 : 0);
