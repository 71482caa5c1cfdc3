import { appConfig } from "../config/current";
import type { UserRecord } from "../store/users";
import { identifyProxied } from "./proxy";
import { userForToken } from "./session";

/** Who a request is from, or why their sign-in was refused (single sign-on through a proxy). */
export type RequestIdentity = { user: UserRecord | null; refused: string | null };

/**
 * The one place that decides who is calling, for routes and pages alike: the person a trusted
 * sign-in proxy vouches for, else the session cookie's. A proxy's headers from any other peer are
 * ignored, so the cookie decides then.
 */
export async function identifyRequest(headers: Headers, sessionToken: string | undefined): Promise<RequestIdentity> {
  const config = appConfig();
  const proxied = await identifyProxied(headers, config.authProxy, { ttlHours: config.sessionTtlHours });
  if (proxied) return "user" in proxied ? { user: proxied.user, refused: null } : { user: null, refused: proxied.refused };
  return { user: await userForToken(sessionToken), refused: null };
}
