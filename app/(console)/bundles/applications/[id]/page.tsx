import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ApplicationView } from "@/components/bundles/ApplicationView";
import { meOf } from "@/components/access";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";
import type { ApplicationProgress } from "@/server/bundles/contract";
import { applicationProgress } from "@/server/bundles/progress";
import { UserFacingError } from "@/server/errors";

export const metadata: Metadata = { title: "Bundle application" };

type Props = { params: Promise<{ id: string }> };

export default async function ApplicationPage({ params }: Props) {
  const actor = await requirePageActor(SECTIONS.bundles.access);
  const me = actor.user;
  const { id } = await params;
  let progress: ApplicationProgress;
  try {
    progress = await applicationProgress(id, actor);
  } catch (error) {
    if (error instanceof UserFacingError && error.status === 404) notFound();
    throw error;
  }
  const a = progress.application;
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/bundles" className="text-accent hover:underline">
          Bundles
        </Link>{" "}
        / {a.cluster}
      </nav>
      <PageHeader title={`OpenShift ${a.releaseVersion} on ${a.cluster}`} />
      <ApplicationView id={id} me={meOf(me)} initial={seed(progress)} />
    </>
  );
}
