import type { Metadata } from "next";
import { BundlesView } from "@/components/bundles/BundlesView";
import { meOf } from "@/components/access";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";
import { readReach } from "@/server/domain/grants";
import { listApplications } from "@/server/bundles/bundles";

export const metadata: Metadata = { title: "Bundles" };

export default async function BundlesPage() {
  const actor = await requirePageActor(SECTIONS.bundles.access);
  const me = actor.user;
  return (
    <>
      <PageHeader
        title="Upgrade bundles"
        description="Pre-load a release's images on a disconnected cluster, follow every node, then start the upgrade."
      />
      <BundlesView me={meOf(me)} applications={seed(await listApplications({ reach: readReach(actor.held) }))} />
    </>
  );
}
