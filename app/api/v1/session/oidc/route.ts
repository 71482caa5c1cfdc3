import { afterSignIn } from "@/components/sameOriginPath";
import { sessionEndpoints } from "@/server/auth/contract";
import { beginOidcSignIn, OIDC_FLOW_TTL_SECONDS } from "@/server/auth/oidc";
import { effectiveOidc } from "@/server/auth/oidcSettings";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";
import { requestOrigin } from "@/server/http/request";
import { oidcFlowCookie, signInRefusedCookie } from "@/server/http/sessionCookie";

export const dynamic = "force-dynamic";

/** Starts single sign-on: sends the browser to the OpenID provider, with the sealed flow in a cookie. */
export const GET = apiRoute(sessionEndpoints.startOidc, async ({ request, query }) => {
  const oidc = (await effectiveOidc())?.oidc;
  if (!oidc) throw new UserFacingError(404, "Single sign-on is not configured (FLEETSKEW_OIDC_ISSUER, or Admin → Settings)");
  let started: Awaited<ReturnType<typeof beginOidcSignIn>>;
  try {
    started = await beginOidcSignIn(oidc, afterSignIn(query.next, requestOrigin(request)));
  } catch (error) {
    // The provider cannot be reached: back to the sign-in page, which says so.
    if (!(error instanceof UserFacingError)) throw error;
    return new Response(null, {
      status: 303,
      headers: { location: "/login?refused=1", "set-cookie": signInRefusedCookie(request, error.message), "cache-control": "no-store" },
    });
  }
  return new Response(null, {
    status: 303,
    headers: {
      location: started.url,
      "set-cookie": oidcFlowCookie(request, started.flowCookie, OIDC_FLOW_TTL_SECONDS),
      "cache-control": "no-store",
    },
  });
});
