import type { Metadata } from "next";
import Link from "next/link";
import { FleetView } from "@/components/fleet/FleetView";
import { FLEET_WINDOW, paramsOfView, viewFromParams } from "@/components/fleet/fleetUrl";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { currentFleetAlerts } from "@/server/alerts/alertList";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";
import { reachKey, readReach } from "@/server/domain/grants";
import { fleetSummary } from "@/server/fleet/fleet";
import { fleetPage } from "@/server/fleet/fleetPage";
import { FleetListQuerySchema } from "@/server/fleet/fleetQuery";
import { answerKey, sharedAnswer } from "@/server/fleet/sharedAnswers";

export const metadata: Metadata = { title: "Fleet" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** Renders the counts and the first window of the view the URL asks for; the table fetches the rest as it scrolls. */
export default async function FleetPage({ searchParams }: { searchParams: SearchParams }) {
  const actor = await requirePageActor(SECTIONS.fleet.access);
  const reach = readReach(actor.held);
  const raw = await searchParams;
  const view = viewFromParams({ get: (name) => (typeof raw[name] === "string" ? (raw[name] as string) : null) });
  const query = paramsOfView(view).toString();
  const parsed = FleetListQuerySchema.safeParse({ ...Object.fromEntries(new URLSearchParams(query)), limit: String(FLEET_WINDOW) });
  const [summary, first, alerts] = await Promise.all([
    sharedAnswer(answerKey(`summary ${reachKey(reach)}`), () => fleetSummary(reach)),
    // A hand-edited link the API would refuse: the table shows the API's message instead of a first window.
    parsed.success
      ? sharedAnswer(answerKey(`clusters ${reachKey(reach)}`, parsed.data), () => fleetPage(parsed.data, { reach }))
      : Promise.resolve(null),
    sharedAnswer(answerKey(`alerts ${reachKey(reach)}`), () => currentFleetAlerts(reach)),
  ]);
  return (
    <>
      <PageHeader
        title="Fleet"
        description="Boot-image skew and upgrade readiness of every registered cluster, as of the collector's latest sweep."
        actions={
          <Link
            href="/alerts"
            className="rounded-md border border-line px-3 py-1.5 text-sm hover:bg-canvas"
            data-testid="fleet-alerts-link"
          >
            {alerts.length ? `${alerts.length} alert${alerts.length === 1 ? "" : "s"} Fleetskew would raise` : "No alerts"} →
          </Link>
        }
      />
      <FleetView
        first={{ ...seed(first ?? { clusters: [], total: 0, next: null }), query: parsed.success ? query : "\u0000" }}
        summary={seed(summary)}
      />
    </>
  );
}
