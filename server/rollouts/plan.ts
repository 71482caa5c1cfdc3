/**
 * Making a rollout's plan: the selection resolved and frozen, each cluster checked before it enters,
 * the waves, the windows and the estimate. With `dryRun` nothing is saved and the plan is the
 * answer; otherwise the plan is saved, waiting for someone else's approval.
 */
import { FLEET_WIDE, readReach, reachOf, type Reach } from "../domain/grants";
import { scopeText } from "../auth/clusterAuthority";
import { auditActor, type Actor } from "../auth/actor";
import { exclusionReason, type CandidateFacts, type RolloutIntent } from "../domain/rollouts/eligibility";
import { estimateRollout, type RolloutEstimate } from "../domain/rollouts/estimate";
import { planWaves, type PlannedWave } from "../domain/rollouts/plan";
import type { RolloutRequest } from "../domain/rollouts/request";
import { checkWindowFits, windowForLabels, type MaintenanceWindow } from "../domain/rollouts/windows";
import { UserFacingError } from "../errors";
import { FleetListQuerySchema, filterOf } from "../fleet/fleetQuery";
import { staleBefore } from "../fleet/fleetList";
import { firstIssue } from "../http/api";
import { sentenceOf } from "../http/issues";
import { findBundle, findVettedBundle } from "../store/bundles";
import type { FleetFilter } from "../store/fleetWindow";
import { describeWrite } from "./describe";
import { storedPrecheckExclusions } from "./bundlePlan";
import { candidateFacts, candidatesOutside } from "../store/rolloutCandidates";
import { clustersInReach } from "../store/reach";
import { ClusterInActiveRolloutError, ClusterRemovedWhilePlanningError, createRollout } from "../store/rolloutPlans";
import type { RolloutRecord } from "../store/rolloutRecords";

/** How long one cluster's step is expected to take, per kind: what windows must fit and the estimate adds up. */
export const EXPECTED_STEP_MS: Record<RolloutRequest["kind"], number> = {
  upgrade: 90 * 60_000,
  bundle: 60 * 60_000,
  acknowledgement: 10 * 60_000,
};

export type RolloutPlan = {
  waves: PlannedWave[];
  excluded: { cluster: string; reason: string }[];
  failureBudget: number;
  estimate: RolloutEstimate;
  selected: number;
  /** Clusters selected within the planner's sight but outside their technician scope: counted, never named. */
  outsideScope: number;
};

/**
 * Where a plan may reach: the planner's technician grants (written to), within what they read
 * (what they may be told about). Without a planner (benchmarks, the runner's own checks) the whole fleet.
 */
type Planner = { write: Reach; read: Reach; words: string };
const plannerOf = (actor: Actor | null): Planner =>
  actor
    ? { write: reachOf(actor.held, ["technician"]), read: readReach(actor.held), words: scopeText(actor, ["technician"]) }
    : { write: FLEET_WIDE, read: FLEET_WIDE, words: "the whole fleet" };

/** The fleet view's query string as a selection; paging and sorting play no part in one. */
function selectionOf(request: RolloutRequest, reach: Reach): { names: string[] } | { filter: FleetFilter } {
  if ("clusters" in request.selection) return { names: [...new Set(request.selection.clusters)] };
  const parsed = FleetListQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(request.selection.query)));
  if (!parsed.success)
    throw new UserFacingError(400, `${firstIssue(parsed.error)} (in the cluster filter)`, {}, { field: "selection.query" });
  return { filter: filterOf(parsed.data, reach) };
}

/** What each cluster gets written, and what plan-wide checks (a vetted bundle) decide it. */
async function intentOf(request: RolloutRequest): Promise<RolloutIntent> {
  if (request.kind === "upgrade") return { kind: "upgrade", target: request.target, acceptRisks: request.acceptRisks };
  if (request.kind === "acknowledgement") return { kind: "acknowledgement" };
  const digest = request.bundle.replace(/^sha256:/, "");
  if (!(await findVettedBundle(digest)))
    throw new UserFacingError(422, `The bundle sha256:${digest.slice(0, 12)}… has not been vetted by an approver`, {}, { field: "bundle" });
  const bundle = await findBundle(digest);
  if (!bundle)
    throw new UserFacingError(
      422,
      `The bundle sha256:${digest.slice(0, 12)}… is vetted but not uploaded; upload its manifest first`,
      {},
      { field: "bundle" },
    );
  return { kind: "bundle", release: bundle.releaseVersion };
}

/**
 * The window a cluster's writes must start in: the one frozen for it when the rollout was approved
 * (`frozenOf` gives undefined for a cluster not frozen), else its label value's own, else the
 * plan's, else none.
 */
export function windowResolver(
  windows: RolloutRequest["windows"],
  labelsOf: (cluster: string) => Record<string, string>,
  frozenOf: (cluster: string) => MaintenanceWindow | null | undefined = () => undefined,
) {
  return (cluster: string): MaintenanceWindow | null => {
    const frozen = frozenOf(cluster);
    return frozen !== undefined ? frozen : windowForLabels(windows, labelsOf(cluster));
  };
}

function checkWindows(request: RolloutRequest): void {
  const all = [
    ...(request.windows?.default ? [["windows.default", request.windows.default] as const] : []),
    ...Object.entries(request.windows?.byValue ?? {}).map(([value, w]) => [`windows.byValue.${value}`, w] as const),
  ];
  for (const [field, window] of all) {
    const problem = checkWindowFits(window, EXPECTED_STEP_MS[request.kind]);
    if (problem) throw new UserFacingError(400, sentenceOf(field.split("."), problem), {}, { field });
  }
}

/**
 * The plan covers only clusters in the planner's technician scope; those selected outside it are
 * counted (`outsideScope`) and never named. A query counts only what the planner reads (a cluster
 * they cannot read is not theirs to know of); a name outside their technician scope is counted
 * whether or not it exists, unless they read the whole fleet, where a name that matches nothing is
 * still said to (so the difference tells a scoped planner nothing). A selection with nothing in
 * scope is refused naming the planner's scope.
 */
export async function planRollout(request: RolloutRequest, actor: Actor | null = null, now = new Date()): Promise<RolloutPlan> {
  checkWindows(request);
  const intent = await intentOf(request);
  const planner = plannerOf(actor);
  const stale = staleBefore();
  const selection = selectionOf(request, planner.write);
  const facts = await candidateFacts("names" in selection ? { ...selection, reach: planner.write } : selection, stale);
  let outsideScope: number;
  if ("names" in selection) {
    const known = new Set(facts.map((f) => f.name));
    const rest = selection.names.filter((n) => !known.has(n));
    if (rest.length && planner.read.kind === "fleet") {
      const existing = new Set((await clustersInReach(rest, FLEET_WIDE)).map((c) => c.name));
      const missing = rest.filter((n) => !existing.has(n));
      if (missing.length)
        throw new UserFacingError(400, `No cluster named ${missing.slice(0, 3).join(", ")}`, {}, { field: "selection.clusters" });
    }
    outsideScope = rest.length;
  } else {
    outsideScope = await candidatesOutside({ filter: { ...selection.filter, reach: FLEET_WIDE } }, planner.read, planner.write, stale);
  }
  if (!facts.length && planner.write.kind !== "fleet")
    throw new UserFacingError(403, `None of the selected clusters is in your scope: ${planner.words}`, {}, { field: "selection" });
  if (!facts.length) throw new UserFacingError(400, "No cluster matches the selection", {}, { field: "selection" });
  const excluded: RolloutPlan["excluded"] = [];
  let included: CandidateFacts[] = [];
  for (const f of facts) {
    const reason = exclusionReason(f, intent);
    if (reason) excluded.push({ cluster: f.name, reason });
    else included.push(f);
  }
  if (request.kind === "bundle") {
    const failing = await storedPrecheckExclusions(
      request.bundle,
      included.map((f) => f.name),
    );
    included = included.filter((f) => !failing.has(f.name));
    excluded.push(...[...failing].map(([cluster, reason]) => ({ cluster, reason })));
    excluded.sort((a, b) => a.cluster.localeCompare(b.cluster));
  }
  const { strategy } = request;
  // Every cluster excluded is still a plan worth showing: the list says why each one was left out.
  const planned = included.length
    ? planWaves(included, {
        canaries: strategy.canaries,
        maxConcurrency: strategy.maxConcurrency ?? null,
        groupBy: strategy.groupBy ?? null,
        mandatoryGroups: strategy.mandatoryGroups,
        maxFailures: strategy.maxFailures,
      })
    : { ok: true as const, waves: [] as PlannedWave[], failureBudget: 0 };
  if (!planned.ok) throw new UserFacingError(400, sentenceOf(planned.field.split("."), planned.reason), {}, { field: planned.field });
  const labels = new Map(included.map((f) => [f.name, f.labels]));
  const estimate = estimateRollout(planned.waves, {
    start: now,
    stepMs: EXPECTED_STEP_MS[request.kind],
    minSuccessMs: strategy.minSuccessTime ?? 0,
    windowOf: windowResolver(request.windows, (c) => labels.get(c) ?? {}),
  });
  return { waves: planned.waves, excluded, failureBudget: planned.failureBudget, estimate, selected: facts.length, outsideScope };
}

export async function saveRollout(request: RolloutRequest, plan: RolloutPlan, actor: Actor): Promise<RolloutRecord> {
  const clusters = plan.waves.reduce((n, w) => n + w.clusters.length, 0);
  if (!clusters) {
    const first = plan.excluded[0];
    throw new UserFacingError(
      400,
      `Every selected cluster was excluded${first ? ` (first: ${first.cluster}: ${first.reason})` : ""}`,
      {},
      { field: "selection" },
    );
  }
  try {
    return await createRollout(
      {
        kind: request.kind,
        request: { ...request, dryRun: undefined },
        createdById: actor.user.id,
        createdBy: actor.user.username,
        estimateMs: plan.estimate.totalMs,
        waves: plan.waves,
        excluded: plan.excluded,
      },
      {
        ...auditActor(actor),
        action: "rollout.create",
        targetType: "rollout",
        summary: `planned a rollout (${describeWrite(request)}) over ${clusters} clusters in ${plan.waves.length} waves; ${plan.excluded.length} excluded${
          plan.outsideScope ? `; ${plan.outsideScope} outside the planner's scope` : ""
        }`,
        details: {
          kind: request.kind,
          clusters,
          waves: plan.waves.length,
          excluded: plan.excluded.length,
          outsideScope: plan.outsideScope,
          grant: scopeText(actor, ["technician"]),
        },
      },
    );
  } catch (error) {
    if (error instanceof ClusterInActiveRolloutError || error instanceof ClusterRemovedWhilePlanningError)
      throw new UserFacingError(409, error.message);
    throw error;
  }
}

/** The plan as the API answers it: times as ISO strings. */
export function planAnswer(plan: RolloutPlan) {
  const { estimate } = plan;
  return {
    ...plan,
    estimate: {
      totalMs: estimate.totalMs,
      finishesAt: estimate.finishesAt.toISOString(),
      waves: estimate.waves.map((w) => ({ ...w, startsAt: w.startsAt.toISOString(), endsAt: w.endsAt.toISOString() })),
    },
  };
}
