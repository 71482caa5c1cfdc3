import type { Metadata } from "next";
import { ComingSoon } from "@/components/ComingSoon";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export const metadata: Metadata = { title: "Preview" };

export default async function PreviewPage() {
  await requirePageUser(SECTIONS.preview.access);
  return (
    <ComingSoon
      title="Config-diff preview"
      description="Will this MachineConfig change reboot my nodes?"
      points={[
        "Paste or upload a MachineConfig and pick a cluster.",
        "See, per pool, whether nodes reboot, drain, reload a service or do nothing, and which rule decided it.",
        "Changes the MCO refuses are shown as unreconcilable, with the reason.",
      ]}
    />
  );
}
