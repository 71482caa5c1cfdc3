import { randomBytes } from "node:crypto";
import * as client from "openid-client";
import type { OidcConfig } from "../config/sso";
import { isLoopbackHost } from "../config/sso";
import { UserFacingError } from "../errors";
import { openSecret, sealSecret } from "../secrets/keyring";
import { recordAudit } from "../store/audit";
import { judgeProviderUsername, unacceptableNameMessage, visibleName } from "../domain/usernames";
import { endExternalSessions, signInExternalUser } from "../store/ssoUsers";
import type { UserRecord } from "../store/users";
import { groupsOf, noMappedGroupMessage, roleForGroups } from "./groupRoles";
import { hashToken } from "./session";

/**
 * Sign-in through an OpenID Connect provider: the authorization code flow with PKCE (S256), a
 * state and a nonce. What the browser must bring back (state, nonce, PKCE verifier, where to go
 * next) travels in a cookie sealed with the console's secret key and valid for ten minutes, so
 * the answer is bound to the browser that started the sign-in and no server keeps per-sign-in state.
 */
export const OIDC_FLOW_TTL_SECONDS = 600;
const SEAL_CONTEXT = "fleetskew oidc sign-in";

/** A refused sign-in: the person reads the message on the sign-in page. */
export class SignInRefusedError extends UserFacingError {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(403, message);
  }
}

type Flow = { state: string; nonce: string; verifier: string; next: string; expiresAt: number };

const discovered = new Map<string, Promise<client.Configuration>>();

/** The provider's metadata, discovered once per process (again after a failure). */
function providerConfiguration(oidc: OidcConfig): Promise<client.Configuration> {
  const key = `${oidc.issuer}\0${oidc.clientId}\0${oidc.clientSecret ?? ""}`;
  let found = discovered.get(key);
  if (!found) {
    const insecure = new URL(oidc.issuer).protocol === "http:" && isLoopbackHost(new URL(oidc.issuer).hostname);
    found = client.discovery(
      new URL(oidc.issuer),
      oidc.clientId,
      undefined,
      oidc.clientSecret ? client.ClientSecretBasic(oidc.clientSecret) : client.None(),
      { execute: insecure ? [client.allowInsecureRequests] : [], timeout: 10 },
    );
    discovered.set(key, found);
    found.catch(() => discovered.delete(key));
  }
  return found.catch((error: Error) => {
    throw new UserFacingError(502, `Could not reach the sign-in provider at ${oidc.issuer}: ${error.message}`);
  });
}

/** Starts a sign-in: where to send the browser, and the sealed cookie value it must bring back. */
export async function beginOidcSignIn(oidc: OidcConfig, next: string): Promise<{ url: string; flowCookie: string }> {
  const config = await providerConfiguration(oidc);
  const flow: Flow = {
    state: client.randomState(),
    nonce: client.randomNonce(),
    verifier: client.randomPKCECodeVerifier(),
    next,
    expiresAt: Date.now() + OIDC_FLOW_TTL_SECONDS * 1000,
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: oidc.redirectUri,
    scope: oidc.scopes,
    response_type: "code",
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
  });
  return { url: url.href, flowCookie: await sealFlow(flow) };
}

export async function sealFlow(flow: Flow): Promise<string> {
  return (await sealSecret(JSON.stringify(flow), SEAL_CONTEXT)).toString("base64url");
}

async function openFlow(cookie: string | undefined): Promise<Flow | null> {
  if (!cookie || cookie.length > 4096) return null;
  try {
    const flow = JSON.parse((await openSecret(Buffer.from(cookie, "base64url"), SEAL_CONTEXT)).toString("utf8")) as Flow;
    return flow.expiresAt > Date.now() ? flow : null;
  } catch {
    return null;
  }
}

export type CallbackQuery = { code?: string; state?: string; iss?: string; error?: string; error_description?: string };

const refuse = async (message: string, reason: string, ip: string | null, who: string | null = null): Promise<never> => {
  await recordAudit({
    actor: who,
    action: "session.login",
    outcome: "denied",
    ip,
    summary: `single sign-on refused${who ? ` for ${who}` : ""}: ${message}`,
    details: { method: "oidc", reason },
  }).catch((error) => console.error("fleetskew: could not record a refused sign-in:", (error as Error).message));
  throw new SignInRefusedError(message, reason);
};

/** A provider's error text as the sign-in page may show it: printable, one line, bounded. */
const providerWords = (text: string) => visibleName(text.slice(0, 300));

/** The OpenID provider's own words for a failed check, turned into what a person can act on. */
function explain(error: unknown, oidc: OidcConfig): { message: string; reason: string } {
  // openid-client wraps oauth4webapi's error, which names the claim or parameter that failed.
  const chain: string[] = [];
  for (let e: unknown = error; e instanceof Error && chain.length < 5; e = e.cause) chain.push(e.message);
  const text = chain.join(": ") || String(error);
  if (/nonce/i.test(text))
    return {
      reason: "nonce",
      message: "The provider's ID token does not carry this sign-in's nonce (a replayed or mixed-up answer); start again",
    };
  if (/"iss"|issuer/i.test(text))
    return {
      reason: "issuer",
      message: `The sign-in answer names another issuer than the configured provider ${oidc.issuer}; refused`,
    };
  if (/state/i.test(text))
    return { reason: "state", message: "The sign-in answer does not belong to the sign-in this browser started; start again" };
  if (error instanceof client.ResponseBodyError)
    return {
      reason: "provider",
      message: `The provider refused to finish the sign-in: ${providerWords(error.error_description ?? error.error)}`,
    };
  return { reason: "invalid", message: `The provider's answer could not be checked: ${chain[0] ?? text}` };
}

export type OidcSignIn = { user: UserRecord; token: string; expiresAt: Date; next: string };

/**
 * Finishes a sign-in: checks the answer against the sealed flow (state here, then issuer, PKCE and
 * the ID token's signature, audience, expiry and nonce in openid-client), maps the groups claim to
 * a role and opens a Fleetskew session. Refusals say why and are audited.
 */
export async function completeOidcSignIn(
  oidc: OidcConfig,
  query: CallbackQuery,
  flowCookie: string | undefined,
  meta: { ip: string | null; userAgent: string | null; ttlHours: number },
): Promise<OidcSignIn> {
  const flow = await openFlow(flowCookie);
  if (!flow)
    return refuse(
      "This sign-in was not started from this browser, or took longer than 10 minutes; start again from the sign-in page",
      "no-flow",
      meta.ip,
    );
  // The state first: until it matches, nothing in the answer came from the provider this browser
  // was sent to (an attacker's link can carry any error_description), so none of it is shown.
  if (!query.state || query.state !== flow.state)
    return refuse("The sign-in answer does not belong to the sign-in this browser started; start again", "state", meta.ip);
  if (query.error)
    return refuse(`The provider refused the sign-in: ${providerWords(query.error_description ?? query.error)}`, "provider", meta.ip);
  if (query.iss !== undefined && query.iss !== oidc.issuer)
    return refuse(
      `The sign-in answer names the issuer ${query.iss.slice(0, 200)}, not the configured provider ${oidc.issuer}; refused`,
      "issuer",
      meta.ip,
    );

  const config = await providerConfiguration(oidc);
  const answer = new URL(oidc.redirectUri);
  for (const [key, value] of Object.entries(query)) if (value !== undefined) answer.searchParams.set(key, value);
  let claims: Record<string, unknown>;
  let accessToken: string;
  try {
    const tokens = await client.authorizationCodeGrant(config, answer, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    claims = { ...(tokens.claims() ?? {}) };
    accessToken = tokens.access_token;
  } catch (error) {
    const { message, reason } = explain(error, oidc);
    return refuse(message, reason, meta.ip);
  }
  const sub = claims.sub as string;
  // Providers that keep groups out of the ID token give them at the userinfo endpoint.
  if (claims[oidc.groupsClaim] === undefined && config.serverMetadata().userinfo_endpoint) {
    const info = await client.fetchUserInfo(config, accessToken, sub).catch(() => null);
    if (info) claims = { ...info, ...claims, [oidc.groupsClaim]: info[oidc.groupsClaim] };
  }
  // The name as the provider gives it, NFKC-normalised; one that could pass for someone else's is refused.
  const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : "");
  const externalId = `oidc:${oidc.issuer}#${sub}`;
  const judged = judgeProviderUsername((text(claims.preferred_username) || text(claims.email) || text(sub)).slice(0, 200));
  if (!judged.ok) return refuse(unacceptableNameMessage(judged.reason, oidc.name, externalId), "username", meta.ip, externalId);
  const username = judged.username;
  const groups = groupsOf(claims[oidc.groupsClaim]);
  const granted = roleForGroups(groups, oidc.roles);
  if (!granted) {
    // Someone who lost every mapped group loses what their other sessions still carried, too.
    await endExternalSessions(externalId, { ip: meta.ip, reason: "no mapped group at sign-in" });
    return refuse(noMappedGroupMessage(username, groups, oidc.roles, oidc.name), "no-mapped-group", meta.ip, username);
  }

  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(Date.now() + meta.ttlHours * 3_600_000);
  const result = await signInExternalUser(
    {
      externalId,
      username,
      // A display name is shown beside the username, never instead of it; invisible characters go.
      displayName:
        text(claims.name)
          .normalize("NFKC")
          .replace(/[\p{Cc}\p{Cf}]/gu, "")
          .trim()
          .slice(0, 120) || null,
      method: "oidc",
    },
    { role: granted.role, grants: granted.grants },
    { tokenHash: hashToken(token), expiresAt, ip: meta.ip, userAgent: meta.userAgent?.slice(0, 300) ?? null },
    { ip: meta.ip, details: { issuer: oidc.issuer, group: granted.group, groups: granted.groups } },
  );
  if (result.outcome === "disabled")
    return refuse(`The Fleetskew account ${result.username} is disabled; ask an administrator`, "disabled", meta.ip, result.username);
  if (result.outcome === "username-taken")
    return refuse(
      `The name ${result.username} belongs to another Fleetskew account (a local one, or another provider's); ask an administrator to rename it`,
      "username-taken",
      meta.ip,
      result.username,
    );
  return { user: result.user, token, expiresAt, next: flow.next };
}

/** Where to send the browser after signing out of Fleetskew, to end the provider's session too. */
export async function providerSignOutUrl(oidc: OidcConfig, publicUrl: string): Promise<string | null> {
  const config = await providerConfiguration(oidc).catch(() => null);
  if (!config?.serverMetadata().end_session_endpoint) return null;
  return client.buildEndSessionUrl(config, { client_id: oidc.clientId, post_logout_redirect_uri: `${publicUrl}/login` }).href;
}
