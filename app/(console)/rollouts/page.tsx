import type { Metadata } from "next";
import { PlanForm } from "@/components/rollouts/PlanForm";
import { PlanPreview } from "@/components/rollouts/PlanPreview";
import { RolloutList } from "@/components/rollouts/RolloutList";
import { Alert, PageHeader } from "@/components/ui";
import { SECTIONS } from "@/server/auth/navigation";
import { hasRole } from "@/server/auth/roles";
import { requirePageActor } from "@/server/auth/page";
import type { Actor } from "@/server/auth/actor";
import { UserFacingError } from "@/server/errors";
import { requestFromForm } from "@/server/rollouts/form";
import { rolloutSummaries } from "@/server/rollouts/manage";
import { planAnswer, planRollout } from "@/server/rollouts/plan";
import { withWorkSlot } from "@/server/security/workLimiter";

export const metadata: Metadata = { title: "Rollouts" };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

/** The rollouts, and the planning form; with `plan=1` the page shows the plan the form asks for (nothing is saved). */
export default async function RolloutsPage({ searchParams }: { searchParams: SearchParams }) {
  const actor = await requirePageActor(SECTIONS.rollouts.access);
  const me = actor.user;
  const raw = await searchParams;
  const values = Object.fromEntries(Object.entries(raw).filter((e): e is [string, string] => typeof e[1] === "string"));
  const preview = values.plan === "1" ? await planOf(values, actor) : null;
  const rollouts = await rolloutSummaries(actor);
  return (
    <>
      <PageHeader
        title="Rollouts"
        description="Carry an upgrade across many clusters in waves: canaries first, then batches, each cluster checked before it enters, inside its maintenance window, stopping when too many fail. A plan is approved by someone other than the person who made it."
      />
      <div className="grid gap-6">
        <RolloutList rollouts={rollouts} />
        <PlanForm values={values} />
        {preview?.kind === "error" ? <Alert tone="error">{preview.error}</Alert> : null}
        {preview?.kind === "plan" ? (
          <PlanPreview plan={preview.plan} body={preview.body} mayPlan={hasRole(me.role, ["technician"])} />
        ) : null}
      </div>
    </>
  );
}

/**
 * The plan the form asks for, or what is wrong with the form, in the API's words. Planning is
 * expensive work, limited per person and in total like POST /api/v1/rollouts (docs/security.md).
 */
async function planOf(values: Record<string, string>, actor: Actor) {
  const reading = requestFromForm(values);
  if (!reading.request) return { kind: "error", error: reading.error ?? "The form is not complete" } as const;
  const request = reading.request;
  try {
    const plan = await withWorkSlot("rollout-plan", actor.user.id, () => planRollout(request, actor));
    return { kind: "plan", plan: planAnswer(plan), body: reading.input } as const;
  } catch (error) {
    if (error instanceof UserFacingError) return { kind: "error", error: error.message } as const;
    throw error;
  }
}
