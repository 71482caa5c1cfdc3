import { metricsText } from "@/server/fleet/metrics";
import { isDatabaseUnavailable } from "@/server/store/errors";

export const dynamic = "force-dynamic";

/** Prometheus scrape endpoint: aggregate figures only, so it needs no session (see docs/api.md). */
export async function GET(): Promise<Response> {
  try {
    return new Response(await metricsText(), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } });
  } catch (error) {
    if (isDatabaseUnavailable(error)) return new Response("database unavailable\n", { status: 503 });
    throw error;
  }
}
