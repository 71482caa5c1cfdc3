import Link from "next/link";
import type { RolloutView } from "@/server/rollouts/contract";
import { Alert, Section } from "../ui";

/**
 * Every setting of a rollout's plan in words, as the approver reads it before approving: what it
 * writes, the clusters (and the excluded ones), the strategy and the windows, with the digest of
 * this version of the plan, which is what approving approves.
 */
export function RolloutSettings({ view, reviewed }: { view: RolloutView; reviewed: string }) {
  const changed = view.status === "awaiting-approval" && reviewed !== view.digest;
  return (
    <Section
      title="The plan"
      description="Every setting that changes what is written or when. Approving approves this version of the plan (its digest); a plan changed since it was shown is refused."
    >
      <div className="grid gap-3" data-testid="rollout-settings" data-digest={view.digest}>
        {changed ? (
          <Alert tone="error">The plan changed while this page was open. Reload the page and review it again before approving.</Alert>
        ) : null}
        <p className="text-sm" data-testid="rollout-clusters-summary">
          <Link href={`/rollouts/${view.number}#clusters`} className="text-accent hover:underline">
            {view.included} {view.included === 1 ? "cluster" : "clusters"}
          </Link>{" "}
          in {view.waves.length} {view.waves.length === 1 ? "wave" : "waves"};{" "}
          {view.excluded ? (
            <Link href={`/rollouts/${view.number}?state=excluded`} className="text-accent hover:underline">
              {view.excluded} excluded by their checks (see why)
            </Link>
          ) : (
            "none excluded"
          )}
          .
        </p>
        <dl className="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[16rem_1fr]">
          {view.settings.map((s, i) => (
            <div key={i} className="contents" data-testid="rollout-setting" data-field={s.field}>
              <dt className="text-muted">{s.label}</dt>
              <dd className="break-words whitespace-pre-wrap">{s.value}</dd>
            </div>
          ))}
        </dl>
        <p className="text-xs text-muted">
          {view.windowsFrozen
            ? "Each cluster's maintenance window was fixed from its labels when the rollout was approved; labels changed since do not move it."
            : view.status === "awaiting-approval"
              ? "Each cluster's maintenance window is fixed from its labels when the rollout is approved; until then a label change is a change of the plan."
              : "Maintenance windows follow the clusters' labels as they are when each step starts (approved before windows were fixed at approval)."}{" "}
          Plan digest <code data-testid="rollout-digest">sha256:{view.digest}</code>
          {view.approvedDigest && view.approvedDigest !== view.digest ? `; approved as sha256:${view.approvedDigest}` : ""}.
        </p>
      </div>
    </Section>
  );
}
