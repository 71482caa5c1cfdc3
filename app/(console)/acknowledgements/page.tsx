import type { Metadata } from "next";
import { AcknowledgementsView } from "@/components/acknowledgements/AcknowledgementsView";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { listAcknowledgementViews } from "@/server/acknowledgements/acknowledgements";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export const metadata: Metadata = { title: "Acknowledgements" };

export default async function AcknowledgementsPage() {
  const me = await requirePageUser(SECTIONS.acknowledgements.access);
  const requests = await listAcknowledgementViews();
  return (
    <>
      <PageHeader
        title="Boot-image acknowledgements"
        description="Record the oldest boot image a cluster really uses, where boot images are updated by hand. One person requests it with evidence, another approves; Fleetskew writes it to the cluster and checks that the MCO took it."
      />
      <AcknowledgementsView me={{ id: me.id, username: me.username, role: me.role }} requests={seed(requests)} />
    </>
  );
}
