import { fleetEndpoints } from "@/server/fleet/contract";
import { clusterReadiness } from "@/server/fleet/fleet";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Readiness checklist for ?target= (e.g. 4.22.3 or 4.23); the next minor when omitted. */
export const GET = apiRoute(fleetEndpoints.readiness, async ({ params, query, actor }) => ({
  readiness: await clusterReadiness(params.name, query.target ?? null, readReach(actor.held)),
}));
