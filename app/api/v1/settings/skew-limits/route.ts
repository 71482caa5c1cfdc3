import { fleetEndpoints } from "@/server/fleet/contract";
import { saveExtraSkewLimits, skewLimitTable } from "@/server/fleet/skewLimits";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The boot-image skew limits per release: the MCO's own, and those an admin added for later releases. */
export const GET = apiRoute(fleetEndpoints.skewLimits, async () => skewLimitTable());

/** Replace the added entries (admin). */
export const PUT = apiRoute(fleetEndpoints.saveSkewLimits, async ({ body, actor }) => saveExtraSkewLimits(body.entries, actor));
