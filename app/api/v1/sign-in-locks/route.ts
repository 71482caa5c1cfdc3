import { clearSignInThrottle, ClearThrottleQuery, signInThrottles } from "@/server/auth/login";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Usernames whose sign-in is slowed down or locked, from which address, until when (admin). */
export const GET = apiRoute({ access: ["admin"] }, async () => ({ locks: await signInThrottles() }));

/** Clear a lock (admin): ?username=NAME, and &address=IP for one address only. Audited. */
export const DELETE = apiRoute({ access: ["admin"], query: ClearThrottleQuery }, async ({ query, actor }) =>
  clearSignInThrottle(query, actor),
);
