import type { Metadata } from "next";
import { ComingSoon } from "@/components/ComingSoon";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export const metadata: Metadata = { title: "Acknowledgements" };

export default async function AcknowledgementsPage() {
  await requirePageUser(SECTIONS.acknowledgements.access);
  return (
    <ComingSoon
      title="Boot-image acknowledgements"
      description="Record the oldest boot image of clusters whose boot images are updated by hand."
      points={[
        "Clusters in Manual skew enforcement whose recorded boot image fails the limit.",
        "A technician requests with evidence; a different person with the approver role approves.",
        "Fleetskew patches the cluster and checks that the Machine Config Operator accepted it.",
      ]}
    />
  );
}
