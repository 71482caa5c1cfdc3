import type { Metadata } from "next";
import { HubsAdmin } from "@/components/hubs/HubsAdmin";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export const metadata: Metadata = { title: "Hubs" };

export default async function HubsAdminPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requirePageUser(SECTIONS.admin.access);
  const hub = (await searchParams).hub;
  return (
    <>
      <PageHeader
        title="ACM hubs"
        description="Fleets managed from Red Hat Advanced Cluster Management: Fleetskew follows every OpenShift cluster a hub manages, reaching each through the hub's cluster-proxy."
      />
      <HubsAdmin initialSelected={typeof hub === "string" && /^[a-z0-9-]{1,63}$/.test(hub) ? hub : null} />
    </>
  );
}
