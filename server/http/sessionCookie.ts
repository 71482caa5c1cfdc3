import { sessionCookieName } from "../auth/session";
import { readCookie } from "./cookies";
import { isHttps } from "./request";

/**
 * Over https the cookie is `__Host-` prefixed and Secure: browsers then refuse it unless it was
 * set by this very origin over https, with Path=/ and no Domain, so no sibling host can plant one.
 */
export function sessionCookie(request: Request, token: string, expiresAt: Date): string {
  const https = isHttps(request);
  const parts = [`${sessionCookieName(https)}=${token}`, "Path=/", "HttpOnly", "SameSite=Lax", `Expires=${expiresAt.toUTCString()}`];
  if (https) parts.push("Secure");
  return parts.join("; ");
}

export function clearedSessionCookie(request: Request): string {
  const https = isHttps(request);
  const parts = [`${sessionCookieName(https)}=`, "Path=/", "HttpOnly", "SameSite=Lax", "Max-Age=0"];
  if (https) parts.push("Secure");
  return parts.join("; ");
}

/** The session token the request carries under the cookie name its scheme uses. */
export const readSessionToken = (request: Request) => readCookie(request, sessionCookieName(isHttps(request)));

/** The sealed OpenID Connect flow (state, nonce, PKCE verifier) between leaving for the provider and coming back. */
const OIDC_FLOW_COOKIE = "fleetskew_oidc";
/** Why the last single sign-on was refused, for the sign-in page to say; a minute long. */
export const SIGN_IN_REFUSED_COOKIE = "fleetskew_sign_in_refused";

const flowCookieName = (https: boolean) => (https ? `__Host-${OIDC_FLOW_COOKIE}` : OIDC_FLOW_COOKIE);

/**
 * SameSite=Lax: the provider sends the browser back with a top-level GET from its own site, which
 * Lax cookies accompany; Strict ones would not.
 */
function shortCookie(request: Request, name: string, value: string, maxAgeSeconds: number): string {
  const parts = [`${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAgeSeconds}`];
  if (isHttps(request)) parts.push("Secure");
  return parts.join("; ");
}

export const oidcFlowCookie = (request: Request, value: string, maxAgeSeconds: number) =>
  shortCookie(request, flowCookieName(isHttps(request)), value, maxAgeSeconds);
export const clearedOidcFlowCookie = (request: Request) => shortCookie(request, flowCookieName(isHttps(request)), "", 0);
export const readOidcFlowCookie = (request: Request) => readCookie(request, flowCookieName(isHttps(request)));

export const signInRefusedCookie = (request: Request, message: string) =>
  shortCookie(request, SIGN_IN_REFUSED_COOKIE, encodeURIComponent(message.slice(0, 1000)), 60);
export const clearedSignInRefusedCookie = (request: Request) => shortCookie(request, SIGN_IN_REFUSED_COOKIE, "", 0);
