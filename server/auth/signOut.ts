import type { AppConfig } from "../config/env";
import type { SignInMethod } from "../store/sessions";
import { providerSignOutUrl } from "./oidc";
import { effectiveOidc } from "./oidcSettings";

/** oauth-proxy's own sign-out path (openshift/oauth-proxy, oauthproxy.go: `<proxy prefix>/sign_out`, prefix /oauth). */
export const OAUTH_PROXY_SIGN_OUT = "/oauth/sign_out";

/**
 * Where a person who signed in through single sign-on ends that session too, after Fleetskew's:
 * the OpenID provider's end-session endpoint, or oauth-proxy's sign-out. Null for a password session.
 */
export async function providerSignOut(method: SignInMethod, config: Pick<AppConfig, "oidc" | "publicUrl">): Promise<string | null> {
  const oidc = method === "oidc" ? (await effectiveOidc(config))?.oidc : undefined;
  if (oidc && config.publicUrl) return providerSignOutUrl(oidc, config.publicUrl);
  if (method === "openshift") return OAUTH_PROXY_SIGN_OUT;
  return null;
}
