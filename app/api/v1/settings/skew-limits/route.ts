import { saveExtraSkewLimits, SaveSkewLimitsSchema, skewLimitTable } from "@/server/fleet/skewLimits";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The boot-image skew limits per release: the MCO's own, and those an admin added for later releases. */
export const GET = apiRoute({ access: "any" }, async () => skewLimitTable());

/** Replace the added entries (admin). */
export const PUT = apiRoute({ access: ["admin"], body: SaveSkewLimitsSchema }, async ({ body, actor }) =>
  saveExtraSkewLimits(body.entries, actor),
);
