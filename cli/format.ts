/** What the commands print for people (`--output text`); `--output json` prints the answers as they came. */
import { formatDate, formatDuration } from "../lib/format";
import type { ClusterList } from "../server/fleet/contract";
import type { ReadinessAnswer } from "../server/fleet/contract";
import type { RolloutPlanAnswer, RolloutView } from "../server/rollouts/contract";
import { EXIT } from "./args";

const FIRST_NAMES = 5;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const names = (list: string[]) =>
  list.slice(0, FIRST_NAMES).join(", ") + (list.length > FIRST_NAMES ? `, … (${list.length - FIRST_NAMES} more)` : "");

/** Columns padded to their widest cell; the last is left as it is. */
export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** Why a plan writes nothing, or null when it writes some cluster. */
export function nothingPlanned(plan: RolloutPlanAnswer): string | null {
  if (plan.waves.some((w) => w.clusters.length > 0)) return null;
  if (plan.selected === 0)
    return "the selection matches no cluster within your reach (the token's or account's scope); nothing would be written";
  return `every one of the ${plural(plan.selected, "selected cluster")} was excluded (reasons above); nothing would be written`;
}

export function formatPlan(plan: RolloutPlanAnswer, heading: string): string {
  const included = plan.waves.reduce((n, w) => n + w.clusters.length, 0);
  const lines = [
    heading,
    `Selected ${plural(plan.selected, "cluster")}: ${included} in ${plural(plan.waves.length, "wave")}, ${plan.excluded.length} excluded.`,
  ];
  if (plan.waves.length) {
    lines.push("", "Waves:");
    const starts = new Map(plan.estimate.waves.map((w) => [w.name, w]));
    lines.push(
      table([
        ["  #", "WAVE", "CLUSTERS", "STARTS", "FIRST CLUSTERS"],
        ...plan.waves.map((w, i) => {
          const at = starts.get(w.name);
          return [
            `  ${i + 1}`,
            `${w.name}${w.mandatory ? " (no failure tolerated)" : ""}`,
            String(w.clusters.length),
            at ? `${formatDate(at.startsAt)}${at.waitsForWindow ? " (window)" : ""}` : "—",
            names(w.clusters),
          ];
        }),
      ]),
    );
  }
  if (plan.excluded.length) {
    lines.push("", "Excluded:");
    lines.push(table(plan.excluded.map((e) => [`  ${e.cluster}`, e.reason])));
  }
  // Clusters outside the planner's scope are counted by the server, never named.
  if (plan.outsideScope) lines.push("", `Outside your scope: ${plural(plan.outsideScope, "selected cluster")}, left out.`);
  lines.push("", `Failure budget: ${plural(plan.failureBudget, "cluster")} may fail before the rollout stops.`);
  if (included) lines.push(`Estimate: ${formatDuration(plan.estimate.totalMs)}, finishing ${formatDate(plan.estimate.finishesAt)}.`);
  const none = nothingPlanned(plan);
  if (none) lines.push("", `Nothing planned: ${none}.`);
  return lines.join("\n");
}

/** The console's page of a rollout, where an approver reviews and approves it. */
export const rolloutPage = (server: URL, rollout: { id: string }) => new URL(`/rollouts/${rollout.id}`, server).toString();

export function formatSaved(rollout: RolloutView, server: URL): string {
  return [
    `Planned rollout #${rollout.number} (${rollout.id}): ${rollout.write}.`,
    `${rollout.included} clusters in ${plural(rollout.waves.length, "wave")}, ${rollout.excluded} excluded; failure budget ${rollout.failureBudget}${rollout.estimate ? `; estimate ${rollout.estimate}` : ""}.`,
    `It waits for approval by someone other than ${rollout.createdBy}: ${rolloutPage(server, rollout)}`,
  ].join("\n");
}

/** The exit code a rollout's state gives `rollout status`. */
export function statusExitCode(rollout: Pick<RolloutView, "status" | "failed">): number {
  if (rollout.status === "aborted") return EXIT.rolloutFailed;
  if ((rollout.status === "completed" || rollout.status === "paused") && rollout.failed > 0) return EXIT.rolloutFailed;
  return EXIT.ok;
}

/** Whether `--watch` stops: the rollout ended, or waits for a person (approval, a paused rollout, a wave to release). */
export const watchEnds = (rollout: Pick<RolloutView, "status" | "awaitingRelease">) =>
  rollout.status !== "running" || rollout.awaitingRelease !== null;

const countsLine = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([state, n]) => `${n} ${state}`)
    .join(", ") || "none";

export function formatStatus(rollout: RolloutView, server: URL): string {
  const lines = [
    `Rollout #${rollout.number}: ${rollout.status}${rollout.statusReason ? ` (${rollout.statusReason})` : ""}`,
    `Writes: ${rollout.write}`,
    `Planned by ${rollout.createdBy} ${formatDate(rollout.createdAt)}${rollout.approvedBy ? `; approved by ${rollout.approvedBy} ${formatDate(rollout.approvedAt)}` : ""}${rollout.finishedAt ? `; finished ${formatDate(rollout.finishedAt)}` : ""}`,
    `Clusters: ${countsLine(rollout.counts)} (failure budget ${rollout.failureBudget}, failed ${rollout.failed})`,
  ];
  if (rollout.waves.length) {
    lines.push("Waves:");
    lines.push(table(rollout.waves.map((w) => [`  ${w.index + 1}`, w.name, w.state, plural(w.total, "cluster"), countsLine(w.counts)])));
  }
  if (rollout.awaitingRelease !== null) lines.push(`Wave ${rollout.awaitingRelease + 1} waits for an approver to release it.`);
  if (rollout.status === "awaiting-approval" || rollout.awaitingRelease !== null || rollout.status === "paused")
    lines.push(`Console: ${rolloutPage(server, rollout)}`);
  return lines.join("\n");
}

export function formatClusters(clusters: ClusterList["clusters"], total: number): string {
  if (!clusters.length) return "No cluster matches (within your reach).";
  return [
    table([
      ["NAME", "VERSION", "PLATFORM", "SKEW", "READINESS", "BLOCKER"],
      ...clusters.map((c) => [
        c.name,
        c.version ?? "—",
        c.platform ?? "—",
        c.skewStatus,
        `${c.readinessStatus}${c.readinessTarget ? ` for ${c.readinessTarget}` : ""}`,
        c.readinessBlocker ?? "",
      ]),
    ]),
    `${plural(total, "cluster")}.`,
  ].join("\n");
}

export function formatReadiness(cluster: string, answer: ReadinessAnswer): string {
  const r = answer.readiness;
  const lines = [`${cluster}: ${r.status} for ${r.target} (${r.current ?? "version unknown"} → ${r.target}, ${r.updateKind})`];
  lines.push(
    table(r.checks.map((c) => [`  ${c.status.toUpperCase()}`, c.title, c.status === "pass" ? "" : c.detail.replace(/\s+/g, " ")])),
  );
  return lines.join("\n");
}
