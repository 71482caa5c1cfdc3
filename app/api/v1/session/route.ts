import { sessionEndpoints } from "@/server/auth/contract";
import { signIn } from "@/server/auth/login";
import { proxiedSessionKey } from "@/server/auth/proxy";
import { providerSignOut } from "@/server/auth/signOut";
import { endSession, sessionForToken } from "@/server/auth/session";
import { apiRoute, json } from "@/server/http/api";
import { appConfig } from "@/server/config/current";
import { clearedSessionCookie, readSessionToken, sessionCookie } from "@/server/http/sessionCookie";

export const dynamic = "force-dynamic";

/** Sign in: sets the session cookie (401 for wrong credentials, 429 with Retry-After when throttled). */
export const POST = apiRoute(sessionEndpoints.signIn, async ({ request, body, ip }) => {
  const session = await signIn({
    username: body.username,
    password: body.password,
    ip,
    userAgent: request.headers.get("user-agent"),
    ttlHours: appConfig().sessionTtlHours,
  });
  return json(
    { user: session.user, expiresAt: session.expiresAt.toISOString() },
    { headers: { "set-cookie": sessionCookie(request, session.token, session.expiresAt) } },
  );
});

/** The signed-in user. */
export const GET = apiRoute(sessionEndpoints.current, async ({ user }) => ({ user }));

/**
 * Sign out: ends the session and clears the cookie. After single sign-on the answer also names
 * where to end the provider's session (200 with `providerSignOut`); otherwise 204.
 */
export const DELETE = apiRoute(sessionEndpoints.signOut, async ({ request, user, ip }) => {
  // Behind oauth-proxy the session is the proxy's sign-in, not a cookie.
  const token = proxiedSessionKey(request.headers, appConfig().authProxy) ?? readSessionToken(request) ?? "";
  const method = (await sessionForToken(token))?.method ?? "password";
  await endSession(token, user, ip);
  const headers = { "set-cookie": clearedSessionCookie(request) };
  const provider = await providerSignOut(method, appConfig());
  if (provider) return json({ providerSignOut: provider }, { headers });
  return new Response(null, { status: 204, headers });
});
