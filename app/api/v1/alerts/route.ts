import { fleetAlertList } from "@/server/alerts/alertList";
import { alertEndpoints } from "@/server/alerts/contract";
import { readReach } from "@/server/domain/grants";
import { apiRoute } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** The alerts Fleetskew would raise within the reader's reach, and the configured Alertmanager's alerts and silences about it (read with a short timeout). */
export const GET = apiRoute(alertEndpoints.list, async ({ actor }) => fleetAlertList(readReach(actor.held)));
