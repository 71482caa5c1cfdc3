import type { Metadata } from "next";
import { BulkRegistration } from "@/components/BulkRegistration";
import { ClusterRegistration } from "@/components/ClusterRegistration";
import { ClustersAdmin } from "@/components/ClustersAdmin";
import { OfflineImport } from "@/components/OfflineImport";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageUser } from "@/server/auth/page";
import { listFleet } from "@/server/fleet/fleet";

export const metadata: Metadata = { title: "Clusters" };

export default async function ClustersAdminPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  await requirePageUser(SECTIONS.admin.access);
  // A bulk registration's progress is linkable: ?registration-job=<id>.
  const job = (await searchParams)["registration-job"];
  const jobId = typeof job === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(job) ? job : null;
  // The same rows the table refetches from GET /api/v1/clusters.
  const clusters = await listFleet();
  return (
    <>
      <PageHeader
        title="Clusters"
        description="The clusters Fleetskew watches. Credentials are stored encrypted and never shown again; Fleetskew needs only read access, plus the write permissions in docs/rbac.md for bundles and acknowledgements."
      />
      <div className="flex flex-col gap-6">
        <ClustersAdmin initial={seed(clusters)} />
        <div className="max-w-3xl">
          <ClusterRegistration />
        </div>
        <div className="max-w-6xl">
          <BulkRegistration initialJobId={jobId} />
        </div>
        <div className="max-w-3xl">
          <OfflineImport />
        </div>
      </div>
    </>
  );
}
