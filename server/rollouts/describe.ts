/**
 * A rollout's request in words: a line for the lists and the audit log, and every setting that
 * changes what is written or when, as the approver reads it before approving. Each setting names
 * the request field it shows, so a test can hold the list to the request schema.
 */
import type { Amount } from "../domain/rollouts/amount";
import { formatDuration } from "../../lib/format";
import type { RolloutRequest } from "../domain/rollouts/request";
import type { MaintenanceWindow } from "../domain/rollouts/windows";

/** What a rollout writes, in a line: for the audit log and the lists. */
export function describeWrite(request: RolloutRequest): string {
  if (request.kind === "upgrade") return `upgrade to ${request.target}`;
  if (request.kind === "bundle") return `bundle sha256:${request.bundle.replace(/^sha256:/, "").slice(0, 12)}…`;
  const a = request.acknowledgement;
  return `acknowledgement ${a.mode} ${a.ocpVersion ?? a.rhcosVersion ?? ""}`.trim();
}

/** One setting of a plan: the request field it comes from, what it is called, and its value in words. */
export type Setting = { field: string; label: string; value: string };

export const amountText = (a: Amount) => ("count" in a ? String(a.count) : `${a.percent}%`);

/** A window as a person reads it: when it opens (cron, in its time zone) and for how long. */
export function describeWindow(w: MaintenanceWindow): string {
  return `opens at "${w.schedule}" (cron, ${w.timeZone}) and stays open ${formatDuration(w.durationMs)}`;
}

const yesNo = (value: boolean, yes: string, no: string) => (value ? `yes: ${yes}` : `no: ${no}`);
const list = (values: readonly string[], none: string) => (values.length ? values.join(", ") : none);

/**
 * Every setting of the plan in words. `included` is the number of clusters the rollout writes (for
 * the failure budget as a count); `release` is the bundle's release, when the bundle is uploaded.
 */
export function describeSettings(
  request: RolloutRequest,
  facts: { included: number; failureBudget: number; release: { version: string; image: string } | null },
): Setting[] {
  const out: Setting[] = [];
  const add = (field: string, label: string, value: string) => out.push({ field, label, value });

  if (request.kind === "upgrade") {
    add("kind", "What it writes", `an upgrade of each cluster to ${request.target} (ClusterVersion's desired update)`);
    add("target", "Target release", request.target);
    add(
      "acceptRisks",
      "Known risks accepted",
      list(request.acceptRisks, "none: a cluster whose update to the target has a known risk is excluded"),
    );
  } else if (request.kind === "bundle") {
    const digest = request.bundle.replace(/^sha256:/, "");
    add("kind", "What it writes", "an upgrade bundle: its release images pinned on each cluster (PinnedImageSets)");
    add("bundle", "Bundle", `sha256:${digest}`);
    add(
      "bundle",
      "Release in the bundle",
      facts.release ? `${facts.release.version} (${facts.release.image})` : "not uploaded: the manifest is no longer stored",
    );
    add(
      "startUpgrade",
      "Starts the upgrade",
      yesNo(
        request.startUpgrade,
        `once its images are pinned, each cluster's upgrade${facts.release ? ` to ${facts.release.version}` : ""} is started`,
        "images are pinned only; no upgrade is started",
      ),
    );
    add(
      "unpinAfter",
      "Unpins the images after",
      yesNo(request.unpinAfter, "the pinned images are released once the upgrade completes", "the images stay pinned"),
    );
  } else {
    const a = request.acknowledgement;
    add("kind", "What it writes", "a manual boot-image acknowledgement on each cluster (MachineConfiguration's bootImageSkewEnforcement)");
    add("acknowledgement.mode", "Acknowledgement mode", a.mode);
    add("acknowledgement.ocpVersion", "Oldest boot image, as an OpenShift release", a.ocpVersion ?? "not given");
    add("acknowledgement.rhcosVersion", "Oldest boot image, as a RHCOS version", a.rhcosVersion ?? "not given");
    add("acknowledgement.evidence", "Evidence", a.evidence);
  }

  if ("query" in request.selection)
    add("selection.query", "Clusters chosen by", `the fleet view's filter "${request.selection.query || "(every cluster)"}"`);
  else add("selection.clusters", "Clusters chosen by", `name: ${request.selection.clusters.length} named`);

  const s = request.strategy;
  add(
    "strategy.canaries",
    "Canaries",
    Array.isArray(s.canaries)
      ? list(s.canaries, "none")
      : s.canaries
        ? `${s.canaries} (the first by name), written first; one failure stops the rollout`
        : "none",
  );
  add(
    "strategy.maxConcurrency",
    "Clusters per wave",
    s.maxConcurrency ? amountText(s.maxConcurrency) : s.groupBy ? `a whole ${s.groupBy} group` : "every cluster left, in one wave",
  );
  add("strategy.groupBy", "One group of waves per value of", s.groupBy ?? "not grouped");
  add("strategy.mandatoryGroups", "Mandatory groups (first, no failure tolerated)", list(s.mandatoryGroups, "none"));
  add(
    "strategy.minSuccessTime",
    "Soak after each wave",
    s.minSuccessTime ? formatDuration(s.minSuccessTime) : "none: the next wave starts as soon as one has succeeded",
  );
  add(
    "strategy.progressDeadline",
    "Deadline per cluster",
    s.progressDeadline == null
      ? "none: a cluster may take as long as it takes"
      : `${formatDuration(s.progressDeadline)}: a cluster not done by then fails`,
  );
  add(
    "strategy.maxFailures",
    "Failures tolerated",
    `${facts.failureBudget} (${amountText(s.maxFailures)} of ${facts.included} included ${facts.included === 1 ? "cluster" : "clusters"})`,
  );
  add(
    "strategy.onFailure",
    "When more fail than tolerated",
    s.onFailure === "pause" ? "pause the rollout" : "go on with the next clusters",
  );
  add(
    "strategy.releaseEachWave",
    "Each wave released by an approver",
    yesNo(s.releaseEachWave, "each wave waits until an approver releases it", "waves follow each other on their own"),
  );

  const w = request.windows;
  if (!w) add("windows", "Maintenance windows", "none: writes start at any time");
  else {
    add(
      "windows.default",
      w.label ? "Maintenance window (clusters without their own)" : "Maintenance window",
      w.default ? describeWindow(w.default) : "none: these clusters are written at any time",
    );
    add("windows.label", "A window per value of label", w.label ?? "none");
    for (const [value, window] of Object.entries(w.byValue ?? {}))
      add("windows.byValue", `Window where ${w.label}=${value}`, describeWindow(window));
  }
  return out;
}
