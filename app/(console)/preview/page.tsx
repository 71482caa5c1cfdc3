import type { Metadata } from "next";
import { PreviewWorkbench } from "@/components/PreviewWorkbench";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export const metadata: Metadata = { title: "Preview" };

export default async function PreviewPage() {
  await requirePageUser(SECTIONS.preview.access);
  return (
    <>
      <PageHeader
        title="Will this change reboot my nodes?"
        description="Paste a MachineConfig and choose clusters: for each pool it would land on, Fleetskew applies the Machine Config Operator's own rules with the cluster's disruption policy."
      />
      <PreviewWorkbench />
    </>
  );
}
