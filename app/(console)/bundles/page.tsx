import type { Metadata } from "next";
import { BundlesView } from "@/components/bundles/BundlesView";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";
import { listApplications } from "@/server/bundles/bundles";

export const metadata: Metadata = { title: "Bundles" };

export default async function BundlesPage() {
  const me = await requirePageUser(SECTIONS.bundles.access);
  return (
    <>
      <PageHeader
        title="Upgrade bundles"
        description="Pre-load a release's images on a disconnected cluster, follow every node, then start the upgrade."
      />
      <BundlesView me={{ id: me.id, username: me.username, role: me.role }} applications={seed(await listApplications())} />
    </>
  );
}
