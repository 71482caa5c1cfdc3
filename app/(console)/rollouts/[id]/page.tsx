import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { RolloutClusters } from "@/components/rollouts/RolloutClusters";
import { RolloutDetail } from "@/components/rollouts/RolloutDetail";
import { meOf } from "@/components/access";
import { seed } from "@/components/seed";
import { PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { requirePageActor } from "@/server/auth/page";
import { UserFacingError } from "@/server/errors";
import { rolloutClusterPage, rolloutView } from "@/server/rollouts/manage";

export const metadata: Metadata = { title: "Rollout" };

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const STATES = ["pending", "waiting-window", "running", "succeeded", "failed", "skipped", "excluded"] as const;

/** A rollout: its plan, waves and clusters (a page at a time), all followed live while it runs. */
export default async function RolloutPage({ params, searchParams }: Props) {
  const actor = await requirePageActor(SECTIONS.rollouts.access);
  const me = actor.user;
  const { id } = await params;
  const q = await searchParams;
  const state =
    typeof q.state === "string" && (STATES as readonly string[]).includes(q.state) ? (q.state as (typeof STATES)[number]) : undefined;
  const after = typeof q.after === "string" ? q.after : undefined;
  const [view, page] = await Promise.all([rolloutView(id, actor), rolloutClusterPage(id, { state, after, limit: 100 }, actor)]).catch(
    (error: unknown) => {
      if (error instanceof UserFacingError && (error.status === 404 || error.status === 400)) notFound();
      throw error;
    },
  );
  const seeded = seed(view);
  return (
    <>
      <nav aria-label="Breadcrumb" className="mb-2 text-sm">
        <Link href="/rollouts" className="text-accent hover:underline">
          Rollouts
        </Link>{" "}
        / Rollout {view.number}
      </nav>
      <PageHeader title={`Rollout ${view.number}: ${view.write}`} />
      <div className="grid gap-6">
        <RolloutDetail initial={seeded} me={meOf(me)} />
        <RolloutClusters initialView={seeded} initialPage={seed(page)} state={state ?? null} after={after ?? null} />
      </div>
    </>
  );
}
