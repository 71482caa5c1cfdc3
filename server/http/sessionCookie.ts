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
