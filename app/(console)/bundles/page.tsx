import type { Metadata } from "next";
import { ComingSoon } from "@/components/ComingSoon";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";

export const metadata: Metadata = { title: "Bundles" };

export default async function BundlesPage() {
  await requirePageUser(SECTIONS.bundles.access);
  return (
    <ComingSoon
      title="Upgrade bundles"
      description="Pre-load a release's images on a disconnected cluster before upgrading it."
      points={[
        "Approvers vet a bundle by its digest; technicians apply it on site.",
        "Prechecks for disk space, pods that re-pull images, and pools that are degraded or updating.",
        "Every node's pre-load progress, in plain words, until the cluster is ready to upgrade.",
      ]}
    />
  );
}
