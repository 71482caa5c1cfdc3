import { signInSettingsEndpoints } from "@/server/auth/contract";
import { clearSignInThrottle, signInThrottles } from "@/server/auth/login";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Usernames whose sign-in is slowed down or locked, from which address, until when (admin). */
export const GET = apiRoute(signInSettingsEndpoints.locks, async () => ({ locks: await signInThrottles() }));

/** Clear a lock (admin): ?username=NAME, and &address=IP for one address only. Audited. */
export const DELETE = apiRoute(signInSettingsEndpoints.clearLock, async ({ query, actor }) => clearSignInThrottle(query, actor));
