import { createHash } from "node:crypto";
import type { AuthProxyConfig } from "../config/sso";
import { judgeProviderUsername, normaliseUsername, unacceptableNameMessage } from "../domain/usernames";
import { clientIp, socketPeer } from "../http/request";
import { openshiftUserForToken, OpenShiftUserError } from "../kube/openshiftUser";
import { recordAudit } from "../store/audit";
import { endExternalSessions, signInExternalUser } from "../store/ssoUsers";
import type { UserRecord } from "../store/users";
import { noMappedGroupMessage, roleForGroups } from "./groupRoles";
import { hashToken, sessionForToken } from "./session";

/**
 * OpenShift's sign-in through the oauth-proxy sidecar. The proxy authenticates the person with the
 * cluster's OAuth server and forwards each request with X-Forwarded-User, X-Forwarded-Email and,
 * with --pass-access-token, X-Forwarded-Access-Token (openshift/oauth-proxy, oauthproxy.go,
 * Authenticate). These headers are believed only when the TCP peer is a configured proxy address;
 * from anyone else they are ignored, as if absent. oauth-proxy forwards no groups, so they are read
 * from the OpenShift API with the person's own token, which must belong to the forwarded user.
 *
 * Each token is one sign-in: the first request with it reads the groups, sets the role and opens a
 * Fleetskew session (audited, method "openshift") keyed by a hash of user and token; later requests
 * find that session. A new OpenShift login (a new token) reads the groups again.
 */
export const FORWARDED_USER = "x-forwarded-user";
export const FORWARDED_EMAIL = "x-forwarded-email";
export const FORWARDED_ACCESS_TOKEN = "x-forwarded-access-token";

export type ProxyIdentity = { user: UserRecord } | { refused: string };

/** Whether the request's identity headers may be believed: a configured proxy is its TCP peer. */
export function fromTrustedProxy(headers: Headers, proxy: AuthProxyConfig): boolean {
  const peer = socketPeer(headers);
  return peer !== null && proxy.peers.includes(peer);
}

/** Refusals are remembered for a minute, so a refused person's every request is not looked up and audited again. */
const refusals = new Map<string, { message: string; until: number }>();
const inFlight = new Map<string, Promise<ProxyIdentity>>();

const sessionKey = (user: string, token: string) => `openshift:${createHash("sha256").update(`${user}\0${token}`).digest("hex")}`;

/**
 * The person the proxy vouches for, or null when the request carries no identity the console
 * believes (no proxy configured, not from the proxy, or no X-Forwarded-User).
 */
export async function identifyProxied(
  headers: Headers,
  proxy: AuthProxyConfig | null,
  meta: { ttlHours: number; now?: Date },
): Promise<ProxyIdentity | null> {
  if (!proxy) return null;
  const forwardedUser = headers.get(FORWARDED_USER)?.trim();
  if (!forwardedUser || !fromTrustedProxy(headers, proxy)) return null;
  const token = headers.get(FORWARDED_ACCESS_TOKEN)?.trim();
  if (!token)
    return {
      refused: "oauth-proxy passes no access token, so Fleetskew cannot read your OpenShift groups; run the proxy with --pass-access-token",
    };
  if (forwardedUser.length > 512 || token.length > 4096) return { refused: "The proxy's identity headers are too long" };
  const key = sessionKey(forwardedUser, token);
  const now = meta.now ?? new Date();
  const refused = refusals.get(key);
  if (refused && refused.until > now.getTime()) return { refused: refused.message };
  const session = await sessionForToken(key, now);
  if (session && session.user.username === normaliseUsername(forwardedUser)) return { user: session.user };
  // Several requests of a page arrive at once with a new token: one sign-in for all of them.
  let pending = inFlight.get(key);
  if (!pending) {
    pending = signInProxied(headers, proxy, forwardedUser, token, key, meta.ttlHours, now).finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return pending;
}

async function signInProxied(
  headers: Headers,
  proxy: AuthProxyConfig,
  forwardedUser: string,
  token: string,
  key: string,
  ttlHours: number,
  now: Date,
): Promise<ProxyIdentity> {
  const ip = clientIp(headers);
  const refuse = async (message: string, reason: string, remember = true): Promise<ProxyIdentity> => {
    if (remember) {
      if (refusals.size > 10_000) refusals.clear();
      refusals.set(key, { message, until: now.getTime() + 60_000 });
    }
    await recordAudit({
      actor: forwardedUser,
      action: "session.login",
      outcome: "denied",
      ip,
      summary: `OpenShift sign-in refused for ${forwardedUser}: ${message}`,
      details: { method: "openshift", reason },
    }).catch((error) => console.error("fleetskew: could not record a refused sign-in:", (error as Error).message));
    return { refused: message };
  };
  if (!proxy.apiUrl)
    return refuse(
      "Fleetskew does not know the OpenShift API to read your groups from; set FLEETSKEW_OPENSHIFT_API_URL (in a pod it is found by itself)",
      "no-api",
    );
  let person;
  try {
    person = await openshiftUserForToken({ url: proxy.apiUrl, caFile: proxy.apiCaFile }, token);
  } catch (error) {
    if (!(error instanceof OpenShiftUserError)) throw error;
    // Not remembered: the API may be back in a moment.
    return refuse(`Your OpenShift groups could not be read: ${error.message}`, "api", false);
  }
  if (person.name !== forwardedUser)
    return refuse(`The proxy's token belongs to ${person.name}, not to ${forwardedUser}; refused`, "token-mismatch");
  const judged = judgeProviderUsername(person.name);
  if (!judged.ok) return refuse(unacceptableNameMessage(judged.reason, "OpenShift", `openshift:${person.name}`), "username");
  const granted = roleForGroups(person.groups, proxy.roles);
  if (!granted) {
    await endExternalSessions(`openshift:${person.name}`, { ip, reason: "no mapped group at sign-in" });
    return refuse(noMappedGroupMessage(forwardedUser, person.groups, proxy.roles, "OpenShift"), "no-mapped-group");
  }
  const result = await signInExternalUser(
    { externalId: `openshift:${person.name}`, username: judged.username, displayName: person.fullName, method: "openshift" },
    { role: granted.role, grants: granted.grants },
    {
      tokenHash: hashToken(key),
      expiresAt: new Date(now.getTime() + ttlHours * 3_600_000),
      ip,
      userAgent: headers.get("user-agent")?.slice(0, 300) ?? null,
    },
    { ip, details: { group: granted.group, groups: granted.groups, email: headers.get(FORWARDED_EMAIL)?.slice(0, 320) ?? null } },
  );
  if (result.outcome === "disabled")
    return refuse(`The Fleetskew account ${result.username} is disabled; ask an administrator`, "disabled");
  if (result.outcome === "username-taken")
    return refuse(
      `The name ${result.username} belongs to another Fleetskew account (a local one, or another provider's); ask an administrator to rename it`,
      "username-taken",
    );
  return { user: result.user };
}

/** The session key of a request the proxy vouches for (to end that session on sign-out), or null. */
export function proxiedSessionKey(headers: Headers, proxy: AuthProxyConfig | null): string | null {
  const user = headers.get(FORWARDED_USER)?.trim();
  const token = headers.get(FORWARDED_ACCESS_TOKEN)?.trim();
  if (!proxy || !user || !token || !fromTrustedProxy(headers, proxy)) return null;
  return sessionKey(user, token);
}
