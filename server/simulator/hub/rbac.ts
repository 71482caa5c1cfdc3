/**
 * Just enough Kubernetes RBAC for the simulated hub and for the managed clusters behind its proxy:
 * request attributes from a path (as the API server's RequestInfoFactory derives them), and
 * PolicyRule matching with `*` wildcards, resourceNames and subresources (`pods/log`).
 */
export type PolicyRule = {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
};

export type ResourceAttributes = {
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
};

export type RequestAttributes = { kind: "resource"; attrs: ResourceAttributes } | { kind: "nonResource"; path: string; verb: string };

const METHOD_VERBS: Record<string, string> = { POST: "create", PUT: "update", PATCH: "patch", DELETE: "delete" };

/** Reads verb and resource from a Kubernetes API path; anything else is a non-resource URL (discovery, health). */
export function requestAttributes(method: string, path: string, query: URLSearchParams): RequestAttributes {
  const segments = path.split("/").filter(Boolean);
  let group = "";
  let version: string;
  let rest: string[];
  if (segments[0] === "api" && segments.length >= 3) {
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 4) {
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return {
      kind: "nonResource",
      path: `/${segments.join("/")}`,
      verb: method === "GET" || method === "HEAD" ? "get" : (METHOD_VERBS[method] ?? method.toLowerCase()),
    };
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  const watch = ["true", "1"].includes(query.get("watch") ?? "");
  let verb: string;
  if (method === "GET" || method === "HEAD") verb = name ? "get" : watch ? "watch" : "list";
  else if (method === "DELETE" && !name) verb = "deletecollection";
  else verb = METHOD_VERBS[method] ?? method.toLowerCase();
  return { kind: "resource", attrs: { verb, group, version, resource: resource!, subresource, namespace, name } };
}

const has = (list: string[] | undefined, value: string) => (list ?? []).some((x) => x === "*" || x === value);

export function ruleAllows(rule: PolicyRule, request: RequestAttributes): boolean {
  if (!has(rule.verbs, request.kind === "resource" ? request.attrs.verb : request.verb)) return false;
  if (request.kind === "nonResource") {
    return (rule.nonResourceURLs ?? []).some(
      (u) => u === "*" || u === request.path || (u.endsWith("*") && request.path.startsWith(u.slice(0, -1))),
    );
  }
  const { group, resource, subresource, name } = request.attrs;
  if (!has(rule.apiGroups, group)) return false;
  const full = subresource ? `${resource}/${subresource}` : resource;
  if (
    !has(rule.resources, full) &&
    !(subresource && has(rule.resources, `${resource}/*`)) &&
    !(subresource && has(rule.resources, `*/${subresource}`))
  )
    return false;
  if (rule.resourceNames && rule.resourceNames.length > 0) return name !== undefined && rule.resourceNames.includes(name);
  return true;
}

/** Discovery and health paths every authenticated user may read (the `system:discovery` and `system:public-info-viewer` roles). */
export const DISCOVERY_RULE: PolicyRule = {
  verbs: ["get"],
  nonResourceURLs: ["/api", "/api/*", "/apis", "/apis/*", "/version", "/version/", "/healthz", "/livez", "/readyz", "/openapi/*"],
};

/** The API server's wording for a refusal (`… is forbidden: User "…" cannot list resource "nodes" in API group "" at the cluster scope`). */
export function forbiddenMessage(user: string, request: RequestAttributes): string {
  if (request.kind === "nonResource") return `forbidden: User "${user}" cannot ${request.verb} path "${request.path}"`;
  const { verb, group, resource, subresource, namespace, name } = request.attrs;
  const full = subresource ? `${resource}/${subresource}` : resource;
  const subject = `${resource}${group ? `.${group}` : ""}${name ? ` "${name}"` : ""}`;
  const scope = namespace ? `in the namespace "${namespace}"` : "at the cluster scope";
  return `${subject} is forbidden: User "${user}" cannot ${verb} resource "${full}" in API group "${group}" ${scope}`;
}
