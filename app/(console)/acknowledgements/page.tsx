import type { Metadata } from "next";
import { AcknowledgementsView } from "@/components/acknowledgements/AcknowledgementsView";
import { meOf } from "@/components/access";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { listAcknowledgementViews } from "@/server/acknowledgements/acknowledgements";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";

export const metadata: Metadata = { title: "Acknowledgements" };

export default async function AcknowledgementsPage() {
  const actor = await requirePageActor(SECTIONS.acknowledgements.access);
  const me = actor.user;
  const requests = await listAcknowledgementViews(undefined, actor);
  return (
    <>
      <PageHeader
        title="Boot-image acknowledgements"
        description="Record the oldest boot image a cluster really uses, where boot images are updated by hand. One person requests it with evidence, another approves; Fleetskew writes it to the cluster and checks that the MCO took it."
      />
      <AcknowledgementsView me={meOf(me)} requests={seed(requests)} />
    </>
  );
}
