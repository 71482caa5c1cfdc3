import { createHash, timingSafeEqual } from "node:crypto";
import { identifyRequest } from "../auth/identify";
import { readSessionToken } from "../http/sessionCookie";

/**
 * Who may read /metrics: a Prometheus presenting `Authorization: Bearer <FLEETSKEW_METRICS_TOKEN>`,
 * or, with no token configured, a signed-in admin (the per-cluster series name clusters and their
 * trouble, which a viewer of another team need not read from outside the console). docs/operations.md.
 */
export type ScrapeDecision = "allowed" | "unauthenticated" | "forbidden";

/** Constant-time comparison of two secrets of any length (both are hashed first, so lengths leak nothing). */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

export function bearerToken(request: Request): string | null {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

export async function decideScrape(request: Request, metricsToken: string | undefined): Promise<ScrapeDecision> {
  const presented = bearerToken(request);
  if (metricsToken) {
    if (presented !== null) return sameSecret(presented, metricsToken) ? "allowed" : "forbidden";
  } else if (presented !== null) {
    // A token where none is configured is a misconfigured scraper: say so instead of looking for a session.
    return "forbidden";
  }
  const { user } = await identifyRequest(request.headers, readSessionToken(request));
  if (!user) return "unauthenticated";
  return user.role === "admin" ? "allowed" : "forbidden";
}
