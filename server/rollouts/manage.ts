/**
 * A saved rollout's life: approved by someone other than its requester, paused, resumed, aborted,
 * a wave released; and how it is shown. Each change is role-checked by its route, conditional on
 * the status it changes, and audited.
 */
import { auditActor, type Actor } from "../auth/actor";
import { formatDuration } from "../domain/format";
import type { Amount } from "../domain/rollouts/amount";
import { failureBudget } from "../domain/rollouts/budget";
import type { RolloutRequest } from "../domain/rollouts/request";
import { ROLLOUT_CLUSTER_STATES } from "../domain/rollouts/figures";
import { waveState } from "../domain/rollouts/outcome";
import { waveAwaitingRelease } from "../domain/rollouts/release";
import { UserFacingError } from "../errors";
import {
  changeRolloutStatus,
  findRollout,
  listRollouts,
  rolloutClusters,
  rolloutCounts,
  rolloutWaves,
  rolloutsOfCluster,
  type RolloutRecord,
  type RolloutStatus,
} from "../store/rollouts";
import { describeWrite } from "./describe";
import { planAnswer, planRollout, saveRollout } from "./plan";
import type { ClusterRollout, RolloutClusterPage, RolloutSummary, RolloutView } from "./contract";

const amountText = (a: Amount | undefined | null) => (!a ? null : "count" in a ? String(a.count) : `${a.percent}%`);

async function found(id: string): Promise<RolloutRecord> {
  const rollout = await findRollout(id);
  if (!rollout) throw new UserFacingError(404, `No rollout ${id}`);
  return rollout;
}

export function summaryOf(r: RolloutRecord): RolloutSummary {
  return {
    id: r.id,
    number: r.number,
    kind: r.kind,
    status: r.status,
    statusReason: r.statusReason,
    write: describeWrite(r.request as RolloutRequest),
    createdBy: r.createdBy,
    createdAt: r.createdAt,
    approvedBy: r.approvedBy,
    approvedAt: r.approvedAt,
    finishedAt: r.finishedAt,
    estimate: r.estimateMs === null ? null : formatDuration(r.estimateMs),
  };
}

export async function rolloutView(id: string): Promise<RolloutView> {
  const r = await found(id);
  const [waves, counts] = await Promise.all([rolloutWaves(r.id), rolloutCounts(r.id)]);
  const request = r.request as RolloutRequest;
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
  return {
    ...summaryOf(r),
    target: request.kind === "upgrade" ? request.target : null,
    bundle: request.kind === "bundle" ? request.bundle.replace(/^sha256:/, "") : null,
    strategy: {
      canaries: s.canaries,
      maxConcurrency: amountText(s.maxConcurrency),
      groupBy: s.groupBy ?? null,
      minSuccessTime: formatDuration(s.minSuccessTime ?? 0),
      progressDeadline: s.progressDeadline === null ? "none" : formatDuration(s.progressDeadline),
      maxFailures: amountText(s.maxFailures)!,
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
    failureBudget: failureBudget(s, included),
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

export async function rolloutSummaries(): Promise<RolloutSummary[]> {
  return (await listRollouts()).map(summaryOf);
}

const AFTER = /^(-?\d{1,4}):(.{1,253})$/;

export async function rolloutClusterPage(
  id: string,
  query: { state?: string; after?: string; limit: number },
): Promise<RolloutClusterPage> {
  const r = await found(id);
  const match = query.after ? AFTER.exec(query.after) : null;
  if (query.after && !match) throw new UserFacingError(400, "after: is not a position this console gave out; start from the first page");
  const rows = await rolloutClusters(r.id, {
    state: query.state,
    after: match ? { wave: Number(match[1]), name: match[2]! } : undefined,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return { clusters: page, next: rows.length > query.limit && last ? `${last.wave}:${last.clusterName}` : null };
}

type Transition = { from: readonly RolloutStatus[]; to: RolloutStatus; verb: string; finished?: boolean };
const TRANSITIONS = {
  approve: { from: ["awaiting-approval"], to: "running", verb: "approved" },
  pause: { from: ["running"], to: "paused", verb: "paused" },
  resume: { from: ["paused"], to: "running", verb: "resumed" },
  abort: { from: ["awaiting-approval", "running", "paused"], to: "aborted", verb: "aborted", finished: true },
} satisfies Record<string, Transition>;

export type RolloutAction = keyof typeof TRANSITIONS;

/** Approve, pause, resume or abort; `comment` is recorded with it (required to abort). */
export async function changeRollout(id: string, action: RolloutAction, comment: string, actor: Actor): Promise<RolloutView> {
  const r = await found(id);
  const t: Transition = TRANSITIONS[action];
  if (action === "abort" && comment.trim().length < 3)
    throw new UserFacingError(400, "comment: say why the rollout is aborted (at least 3 characters)");
  const changed = await changeRolloutStatus(
    r.id,
    t.from,
    t.to,
    {
      reason: comment.trim() ? `${t.verb} by ${actor.user.username}: ${comment.trim()}` : `${t.verb} by ${actor.user.username}`,
      approvedBy: action === "approve" ? actor.user.username : undefined,
      finished: t.finished,
    },
    (current) => ({
      ...auditActor(actor),
      action: `rollout.${action}`,
      targetType: "rollout",
      targetId: String(current.number),
      summary: `${t.verb} rollout ${current.number} (${describeWrite(current.request as RolloutRequest)})${comment.trim() ? `: ${comment.trim()}` : ""}`,
    }),
    (current) => {
      if (action === "approve" && current.createdById === actor.user.id)
        throw new UserFacingError(403, "You planned this rollout; someone else with the approver role must approve it");
    },
  );
  if (!changed) {
    const now = await found(id);
    throw new UserFacingError(409, `Rollout ${now.number} is ${now.status}; it cannot be ${t.verb} now`);
  }
  return rolloutView(changed.id);
}

/** POST /api/v1/rollouts: the plan (dryRun), or the saved rollout waiting for approval. */
export async function proposeRollout(request: RolloutRequest, actor: Actor) {
  const plan = await planRollout(request);
  if (request.dryRun) return { status: 200, answer: planAnswer(plan) } as const;
  const saved = await saveRollout(request, plan, actor);
  return { status: 201, answer: await rolloutView(saved.id) } as const;
}
