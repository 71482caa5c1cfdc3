import type { Metadata } from "next";
import { FleetView } from "@/components/fleet/FleetView";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";
import { listFleet } from "@/server/fleet/fleet";

export const metadata: Metadata = { title: "Fleet" };

export default async function FleetPage() {
  await requirePageUser(SECTIONS.fleet.access);
  const clusters = await listFleet();
  return (
    <>
      <PageHeader
        title="Fleet"
        description="Boot-image skew and upgrade readiness of every registered cluster, as of the collector's latest sweep."
      />
      <FleetView initial={seed(clusters)} />
    </>
  );
}
