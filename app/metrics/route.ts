import { decideScrape } from "@/server/alerts/scrapeAccess";
import { appConfig } from "@/server/config/current";
import { metricsOrUnavailable } from "@/server/fleet/metrics";

export const dynamic = "force-dynamic";

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });

/**
 * Prometheus scrape endpoint: a bearer token equal to FLEETSKEW_METRICS_TOKEN, else (no token set) a
 * signed-in admin's session (docs/operations.md#metrics). Per-cluster series name clusters in trouble.
 */
export async function GET(request: Request): Promise<Response> {
  const decision = await decideScrape(request, appConfig().metricsToken);
  if (decision === "unauthenticated")
    return text(401, "present the bearer token in FLEETSKEW_METRICS_TOKEN, or sign in as an admin\n", {
      "www-authenticate": 'Bearer realm="fleetskew-metrics"',
    });
  if (decision === "forbidden") return text(403, "this token or role may not read /metrics\n");
  const body = await metricsOrUnavailable();
  if (body === null) return text(503, "database unavailable\n");
  return new Response(body, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
}
