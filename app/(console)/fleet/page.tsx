import type { Metadata } from "next";
import { ClusterTable } from "@/components/ClusterTable";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";
import { listClusterSummaries } from "@/server/store/clusters";

export const metadata: Metadata = { title: "Fleet" };

export default async function FleetPage() {
  await requirePageUser(SECTIONS.fleet.access);
  const clusters = await listClusterSummaries();
  return (
    <>
      <PageHeader title="Fleet" description="Every registered cluster, its platform and when Fleetskew last reached it." />
      <ClusterTable clusters={clusters} />
    </>
  );
}
