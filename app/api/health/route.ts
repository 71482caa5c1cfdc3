import { plainRoute } from "@/server/http/api";
import { httpEndpoints } from "@/server/http/contract";
import { checkHealth } from "@/server/http/health";

export const dynamic = "force-dynamic";

export const GET = plainRoute(httpEndpoints.health, async () => {
  const health = await checkHealth();
  return Response.json(health, { status: health.status === "ok" ? 200 : 503, headers: { "cache-control": "no-store" } });
});
