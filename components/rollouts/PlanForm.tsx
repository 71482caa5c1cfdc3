import { Button, Card, Field, Select, TextInput } from "../ui";

/**
 * What a plan uses when a field is left as it is, shown in the fields as real values (never as grey
 * placeholders a person could take for values): the request schema's defaults (no canaries, no
 * failure tolerated, no soak, UTC), and for the deadline TALM's default timeout of 240 minutes
 * (openshift-kni/cluster-group-upgrades-operator, `spec.remediationStrategy.timeout`), so a cluster
 * that never finishes cannot hold a wave for ever. Examples go in the hints.
 */
export const PLAN_FORM_DEFAULTS: Record<string, string> = {
  canaries: "0",
  maxFailures: "0",
  minSuccessTime: "0s",
  progressDeadline: "4h",
  timeZone: "UTC",
};

/**
 * The planning form: a plain GET form, so it works before the page's scripts run and a plan is a
 * link. Clusters are chosen by the fleet view's own query string (the fleet page links here with
 * its filters), or by names.
 */
export function PlanForm({ values }: { values: Record<string, string> }) {
  const v = (name: string) => values[name] ?? "";
  const text = (name: string, label: string, hint?: string) => (
    <Field label={label} hint={hint} htmlFor={`plan-${name}`}>
      <TextInput id={`plan-${name}`} name={name} defaultValue={v(name) || (PLAN_FORM_DEFAULTS[name] ?? "")} />
    </Field>
  );
  return (
    <Card className="p-4">
      <form method="get" action="/rollouts" aria-label="Plan a rollout" className="grid gap-4">
        <input type="hidden" name="plan" value="1" />
        <fieldset className="grid gap-3 sm:grid-cols-3">
          <legend className="mb-2 font-semibold">What to roll out</legend>
          <Field label="Kind" htmlFor="plan-kind">
            <Select id="plan-kind" name="kind" defaultValue={v("kind") || "upgrade"}>
              <option value="upgrade">Upgrade (connected clusters)</option>
              <option value="bundle">Bundle (disconnected sites)</option>
              <option value="acknowledgement">Boot-image acknowledgement</option>
            </Select>
          </Field>
          {text("target", "Target release", "For an upgrade: a release each cluster's ClusterVersion lists, e.g. 4.19.11")}
          {text("acceptRisks", "Accepted risks", "Conditional-update risks the plan accepts, by name, comma-separated")}
          {text("bundle", "Bundle digest", "For a bundle: the vetted manifest's sha256")}
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="startUpgrade" defaultChecked={v("startUpgrade") === "on"} />
            For a bundle: start the upgrade once every node has the images
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="unpinAfter" defaultChecked={v("unpinAfter") === "on"} />
            For a bundle: unpin the images once the upgrade completes
          </label>
        </fieldset>
        <fieldset className="grid gap-3 sm:grid-cols-2">
          <legend className="mb-2 font-semibold">Which clusters</legend>
          {text("query", "Fleet filter", "The fleet view's query string, as its address has it: version=4.19&platform=AWS&label=env=prod")}
          {text("clusters", "Or these clusters", "Names, comma-separated; they win over the filter")}
        </fieldset>
        <fieldset className="grid gap-3 sm:grid-cols-3 lg:grid-cols-5">
          <legend className="mb-2 font-semibold">Waves</legend>
          {text("canaries", "Canaries", "How many clusters go first (0: none), or their names")}
          {text("maxConcurrency", "Clusters per wave", "A number or a percentage, e.g. 10 or 25%; empty: all the rest (a whole group)")}
          {text("groupBy", "One wave per label", "e.g. site or region; empty: no grouping")}
          {text("maxFailures", "Failures tolerated", "A number or a percentage, e.g. 2 or 10%")}
          {text("minSuccessTime", "Soak after a wave", "As Kubernetes writes durations, e.g. 30m; 0s: none")}
          {text("progressDeadline", "Deadline per cluster", "A duration, e.g. 2h; None: no deadline")}
          {text("mandatoryGroups", "Mandatory groups", "Label values that go first and tolerate no failure")}
          <Field label="When too many fail" htmlFor="plan-onFailure">
            <Select id="plan-onFailure" name="onFailure" defaultValue={v("onFailure") || "pause"}>
              <option value="pause">Pause</option>
              <option value="continue">Continue</option>
            </Select>
          </Field>
          <label className="flex items-center gap-2 self-end text-sm">
            <input type="checkbox" name="releaseEachWave" defaultChecked={v("releaseEachWave") === "on"} />
            An approver releases each wave
          </label>
        </fieldset>
        <fieldset className="grid gap-3 sm:grid-cols-3">
          <legend className="mb-2 font-semibold">Maintenance window (optional)</legend>
          {text("schedule", "Opens (cron)", "Five fields: minute hour day month weekday, e.g. 0 2 * * 6; empty: no window")}
          {text("windowDuration", "Open for", "A duration, e.g. 4h")}
          {text("timeZone", "Time zone", "An IANA name, e.g. Europe/Paris")}
        </fieldset>
        <div>
          <Button type="submit">Show the plan</Button>
        </div>
      </form>
    </Card>
  );
}
