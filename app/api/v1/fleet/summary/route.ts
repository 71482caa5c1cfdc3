import { fleetSummary } from "@/server/fleet/fleet";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "any" }, async () => fleetSummary());
