import { sessionEndpoints } from "@/server/auth/contract";
import { completeOidcSignIn } from "@/server/auth/oidc";
import { effectiveOidc } from "@/server/auth/oidcSettings";
import { appConfig } from "@/server/config/current";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";
import {
  clearedOidcFlowCookie,
  clearedSignInRefusedCookie,
  readOidcFlowCookie,
  sessionCookie,
  signInRefusedCookie,
} from "@/server/http/sessionCookie";

export const dynamic = "force-dynamic";

/**
 * Where the OpenID provider sends the browser back. Signed in: to the page asked for, with the
 * session cookie. Refused: to the sign-in page, which says why.
 */
export const GET = apiRoute(sessionEndpoints.oidcCallback, async ({ request, query, ip }) => {
  const config = appConfig();
  const oidc = (await effectiveOidc(config))?.oidc;
  if (!oidc) throw new UserFacingError(404, "Single sign-on is not configured (FLEETSKEW_OIDC_ISSUER, or Admin → Settings)");
  const headers = new Headers({ "cache-control": "no-store" });
  headers.append("set-cookie", clearedOidcFlowCookie(request));
  try {
    const signedIn = await completeOidcSignIn(oidc, query, readOidcFlowCookie(request), {
      ip,
      userAgent: request.headers.get("user-agent"),
      ttlHours: config.sessionTtlHours,
    });
    headers.append("set-cookie", sessionCookie(request, signedIn.token, signedIn.expiresAt));
    headers.append("set-cookie", clearedSignInRefusedCookie(request));
    headers.set("location", signedIn.next);
  } catch (error) {
    if (!(error instanceof UserFacingError)) throw error;
    headers.append("set-cookie", signInRefusedCookie(request, error.message));
    headers.set("location", "/login?refused=1");
  }
  return new Response(null, { status: 303, headers });
});
