/**
 * A saved rollout's life: approved by someone other than its requester, paused, resumed, aborted,
 * a wave released; and how it is shown. Each change is role-checked by its route, conditional on
 * the status it changes, and audited.
 */
import { auditActor, type Actor } from "../auth/actor";
import { scopeText } from "../auth/clusterAuthority";
import { readReach, reachOf, FLEET_WIDE } from "../domain/grants";
import type { Role } from "../domain/accounts";
import { rolloutClustersInReach, rolloutIdsInReach, rolloutTouchesReach } from "../store/rolloutScope";
import { withResolvedProgressDeadline } from "../domain/rollouts/deadline";
import { formatDuration } from "../../lib/format";
import { failureBudget } from "../domain/rollouts/budget";
import { ROLLOUT_CLUSTER_STATES } from "../domain/rollouts/figures";
import { waveState } from "../domain/rollouts/outcome";
import type { RolloutRequest } from "../domain/rollouts/request";
import type { MaintenanceWindow } from "../domain/rollouts/windows";
import { waveAwaitingRelease } from "../domain/rollouts/release";
import { UserFacingError } from "../errors";
import { findBundle } from "../store/bundles";
import { approveRollout, rolloutPlanDigest } from "../store/rolloutApproval";
import { rolloutCounts } from "../store/rolloutCounts";
import {
  findRollout,
  listRollouts,
  rolloutClusters,
  rolloutWaves,
  rolloutsOfCluster,
  type RolloutRecord,
  type RolloutStatus,
} from "../store/rolloutRecords";
import { changeRolloutStatus } from "../store/rolloutStatus";
import { amountText, describeSettings, describeWrite } from "./describe";
import { planAnswer, planRollout, saveRollout } from "./plan";
import type { ClusterRollout, RolloutBrakeAnswer, RolloutClusterPage, RolloutSummary, RolloutView } from "./contract";

/**
 * The rollout, if the actor may see it: one that touches no cluster they read is missing (404),
 * as a rollout that does not exist is. Without an actor (the runner, benchmarks): any rollout.
 */
export async function found(id: string, actor: Actor | null = null): Promise<RolloutRecord> {
  const rollout = await findRollout(id);
  if (!rollout || (actor && !(await rolloutTouchesReach(rollout.id, readReach(actor.held)))))
    throw new UserFacingError(404, `No rollout ${id}`);
  return rollout;
}

/** How many of the rollout's clusters the actor's grants giving these roles cover. */
const coverOf = (r: RolloutRecord, actor: Actor | null, roles: readonly Role[]) =>
  rolloutClustersInReach(r.id, actor ? reachOf(actor.held, roles) : FLEET_WIDE);

/**
 * Approving, releasing a wave and resuming move clusters nobody else will look at again: the
 * approver's grants must cover every cluster of the rollout. Refused naming how many are outside.
 */
/** "The rollout's one cluster is", "1 of the rollout's 2 clusters is", "3 of the rollout's 5 clusters are". */
const outsideWords = (outside: number, total: number) =>
  total === 1 ? "The rollout's one cluster is" : `${outside} of the rollout's ${total} clusters ${outside === 1 ? "is" : "are"}`;

export async function requireOverEvery(r: RolloutRecord, actor: Actor, roles: readonly Role[]): Promise<string> {
  const { total, inReach } = await coverOf(r, actor, roles);
  if (inReach < total)
    throw new UserFacingError(
      403,
      `${outsideWords(total - inReach, total)} outside your ${roles.join(" or ")} scope (${scopeText(actor, roles)})`,
    );
  return scopeText(actor, roles);
}

/** A brake (pause, abort): the role over at least one of the rollout's clusters is enough. */
export async function requireOverSome(r: RolloutRecord, actor: Actor, roles: readonly Role[]): Promise<string> {
  const { total, inReach } = await coverOf(r, actor, roles);
  if (total > 0 && inReach === 0)
    throw new UserFacingError(
      403,
      `None of the rollout's ${total} clusters is in your ${roles.join(" or ")} scope (${scopeText(actor, roles)})`,
    );
  return scopeText(actor, roles);
}

/** What the reader may do with the rollout: the buttons the page shows are those the server will honour. */
async function yoursOf(r: RolloutRecord, actor: Actor | null): Promise<RolloutView["yours"]> {
  const [read, approve, brake] = await Promise.all([
    coverOf(r, actor, ["viewer", "technician", "approver"]),
    coverOf(r, actor, ["approver"]),
    coverOf(r, actor, ["technician", "approver"]),
  ]);
  const every = approve.inReach === approve.total;
  return {
    outsideScope: read.total - read.inReach,
    mayApprove: every && (!actor || (actor.user.id !== r.createdById && !actor.token)),
    mayRelease: every && !actor?.token,
    mayPause: brake.total === 0 || brake.inReach > 0,
    mayAbort: approve.total === 0 || approve.inReach > 0,
  };
}

export function summaryOf(r: RolloutRecord): RolloutSummary {
  return {
    id: r.id,
    number: r.number,
    kind: r.kind,
    status: r.status,
    statusReason: r.statusReason,
    write: describeWrite(r.request),
    createdBy: r.createdBy,
    createdAt: r.createdAt,
    approvedBy: r.approvedBy,
    approvedAt: r.approvedAt,
    finishedAt: r.finishedAt,
    estimate: r.estimateMs === null ? null : formatDuration(r.estimateMs),
  };
}

const windowView = (w: MaintenanceWindow) => ({ schedule: w.schedule, duration: formatDuration(w.durationMs), timeZone: w.timeZone });

/** A bundle rollout's release, as its manifest names it (null when the manifest is no longer stored). */
async function releaseOf(r: RolloutRecord): Promise<{ version: string; image: string } | null> {
  if (r.request.kind !== "bundle") return null;
  const bundle = await findBundle(r.request.bundle.replace(/^sha256:/, ""));
  return bundle ? { version: bundle.releaseVersion, image: bundle.releaseImage } : null;
}

/** The rollout as `actor` may see it (404 when it touches none of their clusters); its counts are the whole rollout's, never names. */
export async function rolloutView(id: string, actor: Actor | null = null): Promise<RolloutView> {
  const r = await found(id, actor);
  const [waves, counts, digest, release, yours] = await Promise.all([
    rolloutWaves(r.id),
    rolloutCounts(r.id),
    rolloutPlanDigest(r),
    releaseOf(r),
    yoursOf(r, actor),
  ]);
  const request = r.request;
  // Every state, 0 included: a page or a script reads "0 failed" as said, not as left out.
  const all: Record<string, number> = Object.fromEntries(ROLLOUT_CLUSTER_STATES.map((state) => [state, 0]));
  const perWave = new Map<number, Record<string, number>>();
  for (const c of counts) {
    all[c.state] = (all[c.state] ?? 0) + c.count;
    const wave = perWave.get(c.wave) ?? {};
    wave[c.state] = c.count;
    perWave.set(c.wave, wave);
  }
  const awaitingRelease = waveAwaitingRelease(request, waves, counts);
  const included = Object.entries(all).reduce((n, [state, count]) => (state === "excluded" ? n : n + count), 0);
  const s = request.strategy;
  const budget = failureBudget(s, included);
  const ack = request.kind === "acknowledgement" ? request.acknowledgement : null;
  return {
    ...summaryOf(r),
    yours,
    digest,
    approvedDigest: r.approvedDigest,
    target: request.kind === "upgrade" ? request.target : null,
    bundle: request.kind === "bundle" ? request.bundle.replace(/^sha256:/, "") : null,
    release,
    acceptRisks: request.kind === "upgrade" ? request.acceptRisks : [],
    startUpgrade: request.kind === "bundle" ? request.startUpgrade : null,
    unpinAfter: request.kind === "bundle" ? request.unpinAfter : null,
    acknowledgement: ack
      ? { mode: ack.mode, ocpVersion: ack.ocpVersion ?? null, rhcosVersion: ack.rhcosVersion ?? null, evidence: ack.evidence }
      : null,
    selection:
      "query" in request.selection
        ? { query: request.selection.query, clusters: null }
        : { query: null, clusters: request.selection.clusters.length },
    windows: request.windows
      ? {
          default: request.windows.default ? windowView(request.windows.default) : null,
          label: request.windows.label ?? null,
          byValue: Object.entries(request.windows.byValue ?? {}).map(([value, w]) => ({ value, window: windowView(w) })),
        }
      : null,
    // Approved through its digest: each cluster's window was frozen then (rollouts approved before were not).
    windowsFrozen: r.approvedDigest !== null,
    settings: describeSettings(request, { included, failureBudget: budget, release }),
    strategy: {
      canaries: s.canaries,
      maxConcurrency: s.maxConcurrency ? amountText(s.maxConcurrency) : null,
      groupBy: s.groupBy ?? null,
      minSuccessTime: formatDuration(s.minSuccessTime ?? 0),
      progressDeadline: s.progressDeadline == null ? "none" : formatDuration(s.progressDeadline),
      maxFailures: amountText(s.maxFailures),
      mandatoryGroups: s.mandatoryGroups,
      onFailure: s.onFailure,
      releaseEachWave: s.releaseEachWave,
    },
    waves: waves.map((w) => {
      const c = perWave.get(w.index) ?? {};
      const total = Object.values(c).reduce((a, b) => a + b, 0);
      return { ...w, total, counts: c, state: w.index === awaitingRelease ? ("awaiting-release" as const) : waveState(c) };
    }),
    counts: all,
    included,
    excluded: all.excluded ?? 0,
    failureBudget: budget,
    failed: all.failed ?? 0,
    awaitingRelease,
  };
}

/** The rollouts a cluster was part of (or excluded from), with its own state in each. */
export async function clusterRollouts(name: string): Promise<ClusterRollout[]> {
  return (await rolloutsOfCluster(name)).map((r) => ({
    ...summaryOf(r),
    clusterState: r.clusterState,
    clusterReason: r.clusterReason,
    clusterFinishedAt: r.clusterFinishedAt,
  }));
}

/** The rollouts that touch at least one cluster the reader reads (all of them without a reader). */
export async function rolloutSummaries(actor: Actor | null = null): Promise<RolloutSummary[]> {
  const reach = actor ? readReach(actor.held) : FLEET_WIDE;
  const ids = reach.kind === "fleet" ? undefined : await rolloutIdsInReach(reach, 200);
  return (await listRollouts(200, ids)).map(summaryOf);
}

const AFTER = /^(-?\d{1,4}):(.{1,253})$/;

/** A page of the rollout's clusters that the reader reads; the others are in the view's counts, never named. */
export async function rolloutClusterPage(
  id: string,
  query: { state?: string; after?: string; limit: number },
  actor: Actor | null = null,
): Promise<RolloutClusterPage> {
  const r = await found(id, actor);
  const match = query.after ? AFTER.exec(query.after) : null;
  if (query.after && !match)
    throw new UserFacingError(
      400,
      "That page position is not one this console gave out; start from the first page",
      {},
      { field: "after" },
    );
  const rows = await rolloutClusters(r.id, {
    state: query.state,
    after: match ? { wave: Number(match[1]), name: match[2]! } : undefined,
    limit: query.limit + 1,
    reach: actor ? readReach(actor.held) : FLEET_WIDE,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return { clusters: page, next: rows.length > query.limit && last ? `${last.wave}:${last.clusterName}` : null };
}

type Transition = { from: readonly RolloutStatus[]; to: RolloutStatus; verb: string; finished?: boolean };
const TRANSITIONS = {
  pause: { from: ["running"], to: "paused", verb: "paused" },
  resume: { from: ["paused"], to: "running", verb: "resumed" },
  abort: { from: ["awaiting-approval", "running", "paused"], to: "aborted", verb: "aborted", finished: true },
} satisfies Record<string, Transition>;

export type RolloutAction = keyof typeof TRANSITIONS | "approve";

const short = (digest: string) => `${digest.slice(0, 12)}…`;

/**
 * Approves the version of the plan the approver reviewed: `digests` are those they sent (If-Match,
 * or the form's digest). None is a 428; a plan whose digest is none of them changed since it was
 * reviewed, and is a 409 that starts nothing. The audit event names the digest approved.
 */
export async function approve(id: string, digests: readonly string[], comment: string, actor: Actor): Promise<RolloutView> {
  if (!digests.length)
    throw new UserFacingError(
      428,
      "Send the digest of the plan you reviewed: If-Match with the ETag of GET /api/v1/rollouts/{id} (or digest in the body)",
    );
  const r = await found(id, actor);
  const grant = await requireOverEvery(r, actor, ["approver"]);
  const note = comment.trim();
  const result = await approveRollout(
    r.id,
    digests,
    {
      approvedBy: actor.user.username,
      reason: note ? `approved by ${actor.user.username}: ${note}` : `approved by ${actor.user.username}`,
    },
    (current, digest) => ({
      ...auditActor(actor),
      action: "rollout.approve",
      targetType: "rollout",
      targetId: String(current.number),
      summary: `approved rollout ${current.number} (${describeWrite(current.request)}), plan ${short(digest)}${note ? `: ${note}` : ""}`,
      details: { grant },
    }),
    (current) => {
      if (current.createdById === actor.user.id)
        throw new UserFacingError(403, "You planned this rollout; someone else with the approver role must approve it");
    },
  );
  if (!result) throw new UserFacingError(404, `No rollout ${id}`);
  if ("approved" in result) return rolloutView(result.approved.id, actor);
  if (result.refused === "status")
    throw new UserFacingError(409, `Rollout ${result.current.number} is ${result.current.status}; it cannot be approved now`);
  throw new UserFacingError(
    409,
    `Rollout ${result.current.number} changed since it was reviewed (plan ${short(digests[0]!)} reviewed, ${short(result.digest)} now): nothing was approved; reload it and review the plan as it is`,
    {},
    { digest: result.digest },
  );
}

/**
 * Approve, pause, resume or abort; `comment` is recorded with it (required to abort). A pause or
 * an abort also says how many cluster writes were on the wire when it committed (`inFlight`): after
 * it, the only ones still sent.
 */
export async function changeRollout(id: string, action: "pause" | "abort", comment: string, actor: Actor): Promise<RolloutBrakeAnswer>;
export async function changeRollout(
  id: string,
  action: RolloutAction,
  comment: string,
  actor: Actor,
  digest?: string,
): Promise<RolloutView>;
export async function changeRollout(
  id: string,
  action: RolloutAction,
  comment: string,
  actor: Actor,
  digest?: string,
): Promise<RolloutView | RolloutBrakeAnswer> {
  if (action === "approve") return approve(id, digest ? [digest] : [], comment, actor);
  const r = await found(id, actor);
  const t: Transition = TRANSITIONS[action];
  // A brake is easy to pull: the role over one cluster; resuming moves them all: an approver over every one.
  const grant =
    action === "resume"
      ? await requireOverEvery(r, actor, ["approver"])
      : await requireOverSome(r, actor, action === "pause" ? ["technician", "approver"] : ["approver"]);
  if (action === "abort" && comment.trim().length < 3)
    throw new UserFacingError(400, "Say why the rollout is aborted, in at least 3 characters", {}, { field: "comment" });
  const changed = await changeRolloutStatus(
    r.id,
    t.from,
    t.to,
    {
      reason: comment.trim() ? `${t.verb} by ${actor.user.username}: ${comment.trim()}` : `${t.verb} by ${actor.user.username}`,
      finished: t.finished,
    },
    (current) => ({
      ...auditActor(actor),
      action: `rollout.${action}`,
      targetType: "rollout",
      targetId: String(current.number),
      summary: `${t.verb} rollout ${current.number} (${describeWrite(current.request)})${comment.trim() ? `: ${comment.trim()}` : ""}`,
      details: { grant },
    }),
  );
  if (!changed) {
    const now = await found(id);
    throw new UserFacingError(409, `Rollout ${now.number} is ${now.status}; it cannot be ${t.verb} now`);
  }
  const view = await rolloutView(changed.id, actor);
  return action === "pause" || action === "abort" ? { ...view, inFlight: changed.inFlight } : view;
}

/** POST /api/v1/rollouts: the plan (dryRun), or the saved rollout waiting for approval. */
export async function proposeRollout(written: RolloutRequest, actor: Actor) {
  // Defaults resolved first, so what is planned, saved, shown and approved is what runs.
  const request = withResolvedProgressDeadline(written);
  const plan = await planRollout(request, actor);
  if (request.dryRun) return { status: 200, answer: planAnswer(plan) } as const;
  const saved = await saveRollout(request, plan, actor);
  return { status: 201, answer: await rolloutView(saved.id, actor) } as const;
}
