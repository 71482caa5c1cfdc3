import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ClusterView } from "@/components/fleet/ClusterView";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { readOnlyReason } from "@/server/auth/clusterAuthority";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";
import { readReach } from "@/server/domain/grants";
import { UserFacingError } from "@/server/errors";
import type { ClusterDetail } from "@/server/fleet/contract";
import { clusterDetail } from "@/server/fleet/fleet";
import { ClusterRollouts } from "@/components/rollouts/ClusterRollouts";
import { clusterRollouts } from "@/server/rollouts/manage";

type Props = { params: Promise<{ name: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: decodeURIComponent((await params).name) };
}

export default async function ClusterPage({ params }: Props) {
  const actor = await requirePageActor(SECTIONS.fleet.access);
  const name = decodeURIComponent((await params).name);
  let detail: ClusterDetail;
  try {
    // A cluster outside the reader's reach is not found, exactly like one that does not exist.
    detail = await clusterDetail(name, { apiUrls: actor.user.role === "admin", reach: readReach(actor.held) });
  } catch (error) {
    if (error instanceof UserFacingError && error.status === 404) notFound();
    throw error;
  }
  const [rollouts, readOnly] = await Promise.all([clusterRollouts(name), readOnlyReason(actor, name)]);
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/fleet" className="text-accent underline">
          Fleet
        </Link>{" "}
        / {detail.cluster.displayName}
      </nav>
      <PageHeader
        title={detail.cluster.displayName}
        description={detail.cluster.displayName !== name ? name : undefined}
        actions={
          <a
            className="text-sm font-medium text-accent hover:underline"
            href={`/preview?${new URLSearchParams({ query: `name=${name}` })}`}
          >
            Preview a MachineConfig here
          </a>
        }
      />
      {readOnly ? (
        <p data-testid="read-only" className="mb-4 rounded-md border-l-4 border-line bg-surface px-3 py-2 text-sm text-muted">
          {readOnly}
        </p>
      ) : null}
      <ClusterView name={name} initial={seed(detail)} />
      <div className="mt-4">
        <ClusterRollouts rollouts={rollouts} />
      </div>
    </>
  );
}
