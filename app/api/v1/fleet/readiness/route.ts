import { fleetReadiness } from "@/server/fleet/fleet";
import { ReadinessQuery } from "@/server/fleet/query";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Readiness rolled up over the fleet for ?target= (each cluster's next minor when omitted). */
export const GET = apiRoute({ access: "any", query: ReadinessQuery }, async ({ query }) => fleetReadiness(query.target ?? null));
