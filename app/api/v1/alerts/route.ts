import { fleetAlertList } from "@/server/alerts/alertList";
import { alertEndpoints } from "@/server/alerts/contract";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The alerts Fleetskew would raise, and the configured Alertmanager's alerts and silences (read with a short timeout). */
export const GET = apiRoute(alertEndpoints.list, async () => fleetAlertList());
