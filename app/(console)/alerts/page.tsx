import type { Metadata } from "next";
import { AlertList } from "@/components/alerts/AlertList";
import { PageHeader } from "@/components/ui";
import { fleetAlertList } from "@/server/alerts/alertList";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";
import { readReach } from "@/server/domain/grants";

export const metadata: Metadata = { title: "Alerts" };

/** The alerts Fleetskew would raise, from the store; with an Alertmanager configured, its alerts and silences beside them. */
export default async function AlertsPage() {
  const actor = await requirePageActor(SECTIONS.alerts.access);
  const list = await fleetAlertList(readReach(actor.held));
  return (
    <>
      <PageHeader
        title="Alerts"
        description="What needs someone's action before an upgrade is blocked, as Fleetskew's alert rules say it to Prometheus and Alertmanager: predicted boot-image skew blocks, Upgradeable=False, failed pre-loads, unreachable clusters, acknowledgements and rollouts waiting."
      />
      <AlertList list={list} />
    </>
  );
}
