import { isIP } from "node:net";
import { ROLES, type Role } from "../domain/accounts";
import { parseScope } from "../domain/scope";

/**
 * Single sign-on settings from the environment: an OpenID Connect provider (FLEETSKEW_OIDC_*) and
 * OpenShift's oauth-proxy in front of the console (FLEETSKEW_AUTH_PROXY*). Kept apart from env.ts,
 * which calls readSsoConfig; a mistake throws a message naming the variable, as env.ts reports it.
 */

/**
 * Which role a group gives, and over which scope ("" for the whole fleet; admin is always the whole
 * fleet), in the order written.
 */
export type RoleMapping = { group: string; role: Role; scope: string }[];

export type OidcConfig = {
  issuer: string;
  clientId: string;
  /** Absent for a public client, which PKCE alone protects. */
  clientSecret: string | undefined;
  scopes: string;
  groupsClaim: string;
  roles: RoleMapping;
  /** The provider's name on the sign-in button ("Sign in with Example SSO"). */
  name: string;
  /** `<FLEETSKEW_PUBLIC_URL>/api/v1/session/oidc/callback`. */
  redirectUri: string;
};

export type AuthProxyConfig = {
  kind: "openshift";
  /** TCP peers (the socket's address, never X-Forwarded-For) whose identity headers are trusted. */
  peers: string[];
  roles: RoleMapping;
  /** The OpenShift API the user's groups are read from, with the proxy-forwarded token. */
  apiUrl: string | undefined;
  apiCaFile: string | undefined;
};

export class SsoConfigError extends Error {}

const fail = (variable: string, message: string): never => {
  throw new SsoConfigError(`${variable} ${message}`);
};

const ROLE_AT = new RegExp(`^\\s*(${ROLES.join("|")})\\s*(?:@(.*))?$`, "s");

/**
 * `group=role,group=role@scope`: each entry gives its group a role, over the whole fleet or over a
 * scope written as in the fleet view (`emea-field=technician@clusterSet=edge-emea`). Entries are
 * separated by `,`, so a scope here cannot name several clusters or labels in one term (name=a,b);
 * use a cluster set or a label instead. The role is found at the first `=` followed by a role's
 * name and then `@` or the end, so a group name may itself contain `=` and a scope `=` and `&`.
 */
export function parseRoleMapping(text: string | undefined, variable: string): RoleMapping {
  const mapping: RoleMapping = [];
  for (const entry of (text ?? "").split(",").map((e) => e.trim())) {
    if (!entry) continue;
    let split = -1;
    for (let at = entry.indexOf("="); at > 0; at = entry.indexOf("=", at + 1))
      if (ROLE_AT.test(entry.slice(at + 1))) {
        split = at;
        break;
      }
    if (split < 0) {
      // No role found: name the word that stands where the role should (before any @, holding no =).
      let eq = entry.indexOf("=");
      while (
        eq >= 0 &&
        entry
          .slice(eq + 1)
          .split("@")[0]!
          .includes("=")
      )
        eq = entry.indexOf("=", eq + 1);
      const group = eq > 0 ? entry.slice(0, eq).trim() : "";
      if (!group)
        fail(
          variable,
          `has "${entry}", which is not group=role or group=role@scope (e.g. fleet-admins=admin,emea-field=technician@clusterSet=edge-emea)`,
        );
      const role = entry
        .slice(eq + 1)
        .split("@")[0]!
        .trim();
      fail(variable, `gives group ${group} the role "${role}"; roles are ${ROLES.join(", ")}`);
    }
    const group = entry.slice(0, split).trim();
    if (!group) fail(variable, `has "${entry}", which names no group before the =`);
    const [, role, scopeText] = ROLE_AT.exec(entry.slice(split + 1))!;
    let scope = "";
    if (scopeText !== undefined) {
      const read = parseScope(scopeText);
      if (!read.ok) fail(variable, `gives group ${group} the scope "${scopeText.trim().slice(0, 80)}", which is not one: ${read.error}`);
      else scope = read.text;
      if (role === "admin" && scope)
        fail(
          variable,
          `gives group ${group} admin over a scope; admin covers the whole fleet (grant approver, technician or viewer over a scope)`,
        );
    }
    mapping.push({ group, role: role as Role, scope });
  }
  return mapping;
}

/** Loopback hosts, the only ones an http:// issuer may use (tests and local trials). */
export const isLoopbackHost = (hostname: string) => {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
};

/** An IPv4 peer on a dual-stack socket reads as ::ffff:a.b.c.d; compare the plain address. */
export const normalisePeer = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1");

function readIssuer(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail("FLEETSKEW_OIDC_ISSUER", "must be the provider's issuer URL, e.g. https://sso.example.com/realms/ops");
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
    fail("FLEETSKEW_OIDC_ISSUER", "must use https:// (http:// is accepted only on loopback, for tests and local trials)");
  if (url.protocol !== "https:" && url.protocol !== "http:") fail("FLEETSKEW_OIDC_ISSUER", "must be an https:// URL");
  if (url.search || url.hash) fail("FLEETSKEW_OIDC_ISSUER", "must not have a query or fragment");
  // The issuer is compared exactly with what the provider says; keep it as written, minus a trailing slash only when it has a path.
  return value.trim();
}

export function readSsoConfig(
  env: Record<string, string | undefined>,
  publicUrl: string | undefined,
): { oidc: OidcConfig | null; authProxy: AuthProxyConfig | null } {
  let oidc: OidcConfig | null = null;
  if (env.FLEETSKEW_OIDC_ISSUER) {
    const issuer = readIssuer(env.FLEETSKEW_OIDC_ISSUER);
    const clientId = env.FLEETSKEW_OIDC_CLIENT_ID?.trim() || fail("FLEETSKEW_OIDC_CLIENT_ID", "must be set with FLEETSKEW_OIDC_ISSUER");
    if (!publicUrl)
      fail(
        "FLEETSKEW_PUBLIC_URL",
        "must be set with FLEETSKEW_OIDC_ISSUER: the provider sends people back to <FLEETSKEW_PUBLIC_URL>/api/v1/session/oidc/callback",
      );
    const scopes = (env.FLEETSKEW_OIDC_SCOPES ?? "openid profile email").trim().split(/\s+/);
    if (!scopes.includes("openid")) fail("FLEETSKEW_OIDC_SCOPES", 'must include "openid"');
    const roles = parseRoleMapping(env.FLEETSKEW_OIDC_ROLES, "FLEETSKEW_OIDC_ROLES");
    if (roles.length === 0)
      fail("FLEETSKEW_OIDC_ROLES", "must map at least one group to a role (e.g. fleet-admins=admin,fleet-approvers=approver)");
    oidc = {
      issuer,
      clientId,
      clientSecret: env.FLEETSKEW_OIDC_CLIENT_SECRET || undefined,
      scopes: scopes.join(" "),
      groupsClaim: env.FLEETSKEW_OIDC_GROUPS_CLAIM?.trim() || "groups",
      roles,
      name: env.FLEETSKEW_OIDC_NAME?.trim().slice(0, 60) || new URL(issuer).hostname,
      redirectUri: `${publicUrl}/api/v1/session/oidc/callback`,
    };
  }
  let authProxy: AuthProxyConfig | null = null;
  if (env.FLEETSKEW_AUTH_PROXY) {
    if (env.FLEETSKEW_AUTH_PROXY !== "openshift") fail("FLEETSKEW_AUTH_PROXY", 'must be "openshift" (OpenShift\'s oauth-proxy)');
    const peers = (env.FLEETSKEW_AUTH_PROXY_PEERS ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    if (peers.length === 0) fail("FLEETSKEW_AUTH_PROXY_PEERS", "must name the proxy's address(es), e.g. 127.0.0.1,::1 for a sidecar");
    for (const peer of peers) if (!isIP(peer)) fail("FLEETSKEW_AUTH_PROXY_PEERS", `has "${peer}", which is not an IP address`);
    const roles = parseRoleMapping(env.FLEETSKEW_AUTH_PROXY_ROLES, "FLEETSKEW_AUTH_PROXY_ROLES");
    if (roles.length === 0)
      fail(
        "FLEETSKEW_AUTH_PROXY_ROLES",
        "must map at least one OpenShift group to a role (e.g. fleet-admins=admin,fleet-approvers=approver)",
      );
    const inCluster = env.KUBERNETES_SERVICE_HOST
      ? `https://${env.KUBERNETES_SERVICE_HOST.includes(":") ? `[${env.KUBERNETES_SERVICE_HOST}]` : env.KUBERNETES_SERVICE_HOST}:${env.KUBERNETES_SERVICE_PORT ?? "443"}`
      : undefined;
    const apiUrl = env.FLEETSKEW_OPENSHIFT_API_URL?.trim() || inCluster;
    if (apiUrl && !/^https?:\/\/[^/]+\/?$/.test(apiUrl))
      fail("FLEETSKEW_OPENSHIFT_API_URL", "must be the API server's address, e.g. https://api.hub.example.com:6443");
    if (apiUrl?.startsWith("http:") && !isLoopbackHost(new URL(apiUrl).hostname))
      fail("FLEETSKEW_OPENSHIFT_API_URL", "must use https:// (http:// is accepted only on loopback, for tests)");
    authProxy = {
      kind: "openshift",
      peers: peers.map(normalisePeer),
      roles,
      apiUrl: apiUrl?.replace(/\/$/, ""),
      apiCaFile:
        env.FLEETSKEW_OPENSHIFT_API_CA_FILE?.trim() || (inCluster ? "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt" : undefined),
    };
  }
  return { oidc, authProxy };
}
