import type { RolloutPlanAnswer } from "@/server/rollouts/contract";
import { Alert, Section } from "../ui";
import { SavePlan } from "./SavePlan";
import { formatDate, formatDuration } from "@/lib/format";
/** The first clusters of a wave, and how many more: a wave of 1,000 is not a list of 1,000. */
const sample = (names: string[]) => (names.length <= 6 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`);

/** The plan before anything is written: its waves, who is left out and why, and how long it takes. */
export function PlanPreview({ plan, body, mayPlan }: { plan: RolloutPlanAnswer; body: unknown; mayPlan: boolean }) {
  const included = plan.waves.reduce((n, w) => n + w.clusters.length, 0);
  return (
    <div className="grid gap-4" data-testid="plan-preview">
      <Section
        title={`The plan: ${included} of ${plan.selected} clusters in ${plan.waves.length} waves`}
        description={`Estimated ${formatDuration(plan.estimate.totalMs)}, until ${formatDate(plan.estimate.finishesAt)}. Up to ${plan.failureBudget} clusters may fail before it stops.`}
      >
        {plan.outsideScope > 0 ? (
          <p className="text-sm text-muted" data-testid="outside-scope">
            {plan.outsideScope} {plan.outsideScope === 1 ? "cluster is" : "clusters are"} outside your scope and not in the plan.
          </p>
        ) : null}
        {plan.waves.length ? (
          <ol className="grid gap-2" aria-label="Waves">
            {plan.waves.map((wave, i) => {
              const estimate = plan.estimate.waves[i]!;
              return (
                <li
                  key={wave.name}
                  className="grid gap-1 rounded-md border border-line p-2 sm:grid-cols-[12rem_1fr_16rem]"
                  data-testid="planned-wave"
                >
                  <span className="font-medium">
                    {wave.name}
                    {wave.mandatory ? <span className="ml-2 text-xs text-warn">no failure tolerated</span> : null}
                  </span>
                  <span className="text-sm">
                    <span
                      className="mr-2 inline-block h-2 rounded bg-accent align-middle"
                      style={{ width: `${Math.max(4, (100 * wave.clusters.length) / Math.max(1, included))}%` }}
                    />
                    {wave.clusters.length} {wave.clusters.length === 1 ? "cluster" : "clusters"}: {sample(wave.clusters)}
                  </span>
                  <span className="text-xs text-muted">
                    {estimate.waitsForWindow ? "waits for its window; " : ""}starts {formatDate(estimate.startsAt)}
                  </span>
                </li>
              );
            })}
          </ol>
        ) : (
          <Alert tone="error">Every selected cluster was excluded; the list below says why.</Alert>
        )}
        {plan.waves.length && mayPlan ? <SavePlan body={body} /> : null}
      </Section>
      <Section title={`Excluded: ${plan.excluded.length}`} description="Each cluster left out of the plan, with the first reason.">
        {plan.excluded.length ? (
          <ul className="grid gap-1 text-sm" aria-label="Excluded clusters">
            {plan.excluded.slice(0, 200).map((e) => (
              <li key={e.cluster} data-testid="excluded-cluster">
                <span className="font-medium">{e.cluster}</span>: {e.reason}
              </li>
            ))}
            {plan.excluded.length > 200 ? <li className="text-muted">and {plan.excluded.length - 200} more</li> : null}
          </ul>
        ) : (
          <p className="text-sm text-muted">None: every selected cluster may take part.</p>
        )}
      </Section>
    </div>
  );
}
