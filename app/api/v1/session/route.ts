import { z } from "zod";
import { login } from "@/server/auth/login";
import { endSession, SESSION_COOKIE } from "@/server/auth/session";
import { apiRoute, json, problem, readCookie } from "@/server/http/api";
import { requestConfig } from "@/server/http/request";
import { clearedSessionCookie, sessionCookie } from "@/server/http/sessionCookie";

export const dynamic = "force-dynamic";

const Credentials = z.object({
  username: z.string({ error: "username is required" }).min(1, "username is required").max(200),
  password: z.string({ error: "password is required" }).min(1, "password is required").max(1024),
});

/** Sign in: sets the session cookie. */
export const POST = apiRoute({ access: "public", body: Credentials, maxBodyBytes: 4096 }, async ({ request, body, ip }) => {
  const result = await login({
    username: body.username,
    password: body.password,
    ip,
    userAgent: request.headers.get("user-agent"),
    ttlHours: requestConfig().sessionTtlHours,
  });
  if (!result.ok && result.reason === "rate_limited") {
    const minutes = Math.ceil(result.retryAfterSeconds / 60);
    return problem(429, `Too many failed sign-ins; try again in ${minutes} minute${minutes === 1 ? "" : "s"}`, {
      "retry-after": String(result.retryAfterSeconds),
    });
  }
  if (!result.ok) return problem(401, "Wrong username or password");
  return json(
    { user: result.user, expiresAt: result.expiresAt.toISOString() },
    { headers: { "set-cookie": sessionCookie(request, result.token, result.expiresAt) } },
  );
});

/** The signed-in user. */
export const GET = apiRoute({ access: "any" }, async ({ user }) => ({ user }));

/** Sign out: ends the session and clears the cookie. */
export const DELETE = apiRoute({ access: "any" }, async ({ request, user, ip }) => {
  await endSession(readCookie(request, SESSION_COOKIE)!, user!, ip);
  return new Response(null, { status: 204, headers: { "set-cookie": clearedSessionCookie(request) } });
});
