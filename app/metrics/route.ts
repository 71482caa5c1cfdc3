import { metricsOrUnavailable } from "@/server/fleet/metrics";

export const dynamic = "force-dynamic";

/** Prometheus scrape endpoint: aggregate figures only, so it needs no session (see docs/api.md). */
export async function GET(): Promise<Response> {
  const text = await metricsOrUnavailable();
  if (text === null) return new Response("database unavailable\n", { status: 503 });
  return new Response(text, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
}
