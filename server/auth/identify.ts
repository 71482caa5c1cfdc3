import { appConfig } from "../config/current";
import type { UserRecord } from "../store/users";
import { FORWARDED_USER, fromTrustedProxy, identifyProxied } from "./proxy";
import { userForToken } from "./session";
import { clientIp } from "../http/request";
import { bearerOf, identifyBearer } from "../tokens/tokens";
import { TOKEN_PREFIX } from "../domain/apiTokenSecret";

import type { TokenLimits } from "../domain/grants";

/**
 * Who a request is from, or why their sign-in was refused (single sign-on through a proxy); the API
 * token it came with, if any, or why that token was refused (expired, revoked, unknown: 401).
 */
export type RequestIdentity = { user: UserRecord | null; refused: string | null; token: TokenLimits | null; tokenRefused?: string };

/**
 * The API token a request presents, if it presents one: the value of `Authorization: Bearer …`.
 * Behind a trusted sign-in proxy that vouches for a person, a bearer that is not a Fleetskew token
 * (an OpenShift token the proxy passed on) is the proxy's business and left alone; any other bearer
 * is taken as a token, and refused when it is not one.
 */
export function presentedBearer(headers: Headers): string | null {
  const secret = bearerOf(headers);
  if (secret === null || secret.startsWith(TOKEN_PREFIX)) return secret;
  const proxy = appConfig().authProxy;
  return proxy && headers.get(FORWARDED_USER) && fromTrustedProxy(headers, proxy) ? null : secret;
}

/**
 * The one place that decides who is calling, for routes and pages alike: with `bearer` (the API),
 * an `Authorization: Bearer fsk_…` API token wins over everything else (its owner, narrowed to its
 * limits; the cookie and a proxy's headers are then ignored); else the person a trusted sign-in
 * proxy vouches for, else the session cookie's. A proxy's headers from any other peer are ignored,
 * so the cookie decides then. Pages pass no `bearer`: they go by the cookie only.
 */
export async function identifyRequest(
  headers: Headers,
  sessionToken: string | undefined,
  options: { bearer?: boolean } = {},
): Promise<RequestIdentity> {
  if (options.bearer) {
    const secret = presentedBearer(headers);
    if (secret !== null) {
      const found = await identifyBearer(secret, clientIp(headers));
      return "refused" in found
        ? { user: null, refused: null, token: null, tokenRefused: found.refused }
        : { user: found.user, refused: null, token: found.token };
    }
  }
  const config = appConfig();
  const proxied = await identifyProxied(headers, config.authProxy, { ttlHours: config.sessionTtlHours });
  if (proxied)
    return "user" in proxied ? { user: proxied.user, refused: null, token: null } : { user: null, refused: proxied.refused, token: null };
  return { user: await userForToken(sessionToken), refused: null, token: null };
}
