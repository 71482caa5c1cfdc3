import { UserFacingError } from "@/server/errors";
import { fleetReadiness } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Readiness rolled up over the fleet for ?target= (each cluster's next minor when omitted). */
export const GET = apiRoute({ access: "any" }, async ({ request }) => {
  const target = new URL(request.url).searchParams.get("target");
  if (target !== null && !/^\d+\.\d+(\.\d+)?$/.test(target)) throw new UserFacingError(400, `target must be a version like 4.22 or 4.22.3`);
  return fleetReadiness(target);
});
