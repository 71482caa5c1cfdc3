/**
 * Moves running rollouts on, one tick at a time, from what the database holds: whichever process
 * runs the tick (one at a time, as a background job) takes the same decisions. A step is recorded as
 * started before its cluster is written; each write is preceded by a claim that checks, in one
 * statement, that the rollout and the step are still running and the cluster is the one the plan
 * froze (server/store/rolloutClaims.ts), so abort, pause and skip hold at the next write. The write
 * is recorded as written after, and followed on the cluster until it succeeds or fails. A write that
 * may not have reached the cluster (a 5xx, a timeout) is attempted again after a backoff, at most
 * `maxAttempts` times; a claim whose writer stopped runs out after its lease and the step is written
 * again, which the write itself turns into a confirmation when the cluster already has it.
 */
import { failureBudget } from "../domain/rollouts/budget";
import { decideProgress, type ProgressStrategy } from "../domain/rollouts/progress";
import type { RolloutRequest } from "../domain/rollouts/request";
import type { StepProgress } from "../domain/rollouts/upgradeProgress";
import { rolloutWaves, type RolloutRecord } from "../store/rolloutRecords";
import { changeRolloutStatus } from "../store/rolloutStatus";
import { changeRolloutClusters, rolloutsToAdvance, runnerClusters, type RunnerCluster } from "../store/rolloutSteps";
import { CLAIM_LEASE_MS, claimWrite, endWrite, failReplacedClusters, recordSkippedOutcome } from "../store/rolloutClaims";
import { EXECUTORS, StepRefused, type Executor } from "./executors";
import { eachLimited } from "./limited";
import { EXPECTED_STEP_MS, windowResolver } from "./plan";
import { clusterAnswer } from "../clusters/access";

export type RunnerOptions = {
  /** How long a claimed write may take before its writer is taken for stopped (server/store/rolloutClaims.ts). */
  leaseMs: number;
  /** Write attempts per step; past them the step fails with the last answer. */
  maxAttempts: number;
  /** The wait before the second attempt, doubled for each further one, up to `maxBackoffMs`. */
  backoffMs: number;
  maxBackoffMs: number;
};

export const DEFAULT_RUNNER_OPTIONS: RunnerOptions = {
  leaseMs: CLAIM_LEASE_MS,
  maxAttempts: 5,
  backoffMs: 10_000,
  maxBackoffMs: 5 * 60_000,
};

/** Clusters written or followed at once per rollout: a wave of 1,000 is worked through, not opened at once. */
const CONCURRENCY = 16;

const systemAudit = (r: RolloutRecord, action: string, summary: string) => ({
  actor: `rollout ${r.number}`,
  role: null,
  action,
  targetType: "rollout",
  targetId: String(r.number),
  summary,
});

function strategyOf(request: RolloutRequest, failureBudget: number): ProgressStrategy {
  const s = request.strategy;
  return {
    minSuccessMs: s.minSuccessTime ?? 0,
    progressDeadlineMs: s.progressDeadline ?? null,
    failureBudget,
    onFailure: s.onFailure,
    releaseEachWave: s.releaseEachWave,
    stepMs: EXPECTED_STEP_MS[request.kind],
  };
}

const backoff = (attempt: number, o: RunnerOptions) => Math.min(o.maxBackoffMs, o.backoffMs * 2 ** (attempt - 1));

/**
 * Writes steps that are started and not yet written, each after its claim (a step that may not be
 * written now is left alone); a definite refusal fails the cluster, an unknown outcome is tried
 * again after a backoff, and the last attempt's failure fails the step with the cluster's answer.
 */
async function writeSteps(r: RolloutRecord, executor: Executor, names: string[], o: RunnerOptions): Promise<void> {
  const replaced = new Set(await failReplacedClusters(r.id, names, new Date()));
  await eachLimited(
    names.filter((n) => !replaced.has(n)),
    CONCURRENCY,
    async (name) => {
      const claim = await claimWrite(r.id, name, new Date(), o.leaseMs);
      if (!claim) return;
      const last = claim.attempt >= o.maxAttempts;
      try {
        await executor.write(name, r, { number: claim.attempt, last });
        await endWrite(r.id, name, claim, { type: "written", at: new Date() });
      } catch (error) {
        if (error instanceof StepRefused) await endWrite(r.id, name, claim, { type: "failed", reason: error.message, at: new Date() });
        else if (last)
          await endWrite(r.id, name, claim, {
            type: "failed",
            reason: `no answer confirmed the write in ${claim.attempt} attempts; the last: ${clusterAnswer(error)}`,
            at: new Date(),
          });
        else
          await endWrite(r.id, name, claim, {
            type: "retry",
            reason: `not confirmed yet (attempt ${claim.attempt} of ${o.maxAttempts}, the next after a pause): ${clusterAnswer(error)}`,
            retryAt: new Date(Date.now() + backoff(claim.attempt, o)),
          });
      }
    },
  );
}

/** Follow-up writes only for a running step of a running rollout; every other step is only looked at. */
const look = (executor: Executor, r: RolloutRecord, name: string, mayWrite: boolean): Promise<StepProgress> =>
  executor
    .follow(name, r, mayWrite)
    .catch((error: unknown) => ({ state: "running" as const, note: `cannot reach it now: ${clusterAnswer(error)}` }));

const pastDeadline = (request: RolloutRequest, c: RunnerCluster, now: Date) => {
  const deadline = request.strategy.progressDeadline ?? null;
  return deadline !== null && c.startedAt !== null && now.getTime() - c.startedAt.getTime() > deadline ? deadline : null;
};

/**
 * Follows written steps. In a running rollout the progress deadline is the decisions' (decideProgress);
 * in one a person stopped, nothing else would end a step that hangs, so it is applied here.
 */
async function followSteps(r: RolloutRecord, executor: Executor, clusters: RunnerCluster[], now: Date): Promise<void> {
  const request = r.request;
  await eachLimited(clusters, CONCURRENCY, async (c) => {
    const progress = await look(executor, r, c.name, r.status === "running" && c.state === "running");
    const deadline = r.status === "running" ? null : pastDeadline(request, c, now);
    if (progress.state === "running" && deadline !== null)
      await changeRolloutClusters(r.id, [c.name], ["running"], {
        state: "failed",
        reason: `did not finish within the progress deadline (${Math.round(deadline / 60_000)} minutes); last seen: ${progress.note}`,
        finishedAt: new Date(),
      });
    else if (progress.state === "running") await changeRolloutClusters(r.id, [c.name], ["running"], { reason: progress.note });
    else
      await changeRolloutClusters(r.id, [c.name], ["running"], {
        state: progress.state,
        reason: progress.state === "failed" ? progress.reason : null,
        finishedAt: new Date(),
      });
  });
}

/**
 * Steps a brake left: in a rollout that ended (aborted) a running step never sent ends as skipped;
 * one sent whose write was never confirmed gets one look, and ends as the cluster shows it (or as
 * skipped with what it showed). A skipped step that was sent is followed until the cluster shows
 * its end (or its deadline passes), and that is recorded as its outcome.
 */
async function settleBraked(r: RolloutRecord, executor: Executor, clusters: RunnerCluster[], now: Date): Promise<void> {
  const request = r.request;
  const ended = r.status === "aborted" || r.status === "completed";
  const neverSent = ended ? clusters.filter((c) => c.state === "running" && !c.writtenAt && !c.claimed && c.attempts === 0) : [];
  await changeRolloutClusters(
    r.id,
    neverSent.map((c) => c.name),
    ["running"],
    { state: "skipped", reason: `not written: the rollout was ${r.status} first`, finishedAt: now },
  );
  const unconfirmed = ended ? clusters.filter((c) => c.state === "running" && !c.writtenAt && !c.claimed && c.attempts > 0) : [];
  await eachLimited(unconfirmed, CONCURRENCY, async (c) => {
    const progress = await look(executor, r, c.name, false);
    await changeRolloutClusters(
      r.id,
      [c.name],
      ["running"],
      progress.state === "running"
        ? {
            state: "skipped",
            reason: `not confirmed written before the rollout was ${r.status}; the cluster showed: ${progress.note}`,
            finishedAt: now,
          }
        : { state: progress.state, reason: progress.state === "failed" ? progress.reason : null, finishedAt: now },
    );
  });
  const skipped = clusters.filter((c) => c.state === "skipped" && c.outcome === null && c.attempts > 0 && !c.claimed);
  await eachLimited(skipped, CONCURRENCY, async (c) => {
    const progress = await look(executor, r, c.name, false);
    if (progress.state !== "running")
      await recordSkippedOutcome(r.id, c.name, progress.state, progress.state === "failed" ? progress.reason : null);
    else if (!c.writtenAt) await recordSkippedOutcome(r.id, c.name, "unconfirmed", `not confirmed written; ${progress.note}`);
    else if (pastDeadline(request, c, now) !== null)
      await recordSkippedOutcome(r.id, c.name, "unconfirmed", `still not done at the progress deadline: ${progress.note}`);
  });
}

export async function advanceRollout(r: RolloutRecord, now = new Date(), o: RunnerOptions = DEFAULT_RUNNER_OPTIONS): Promise<void> {
  const request = r.request;
  const executor = EXECUTORS[request.kind];
  if (!executor) return;
  const clusters = await runnerClusters(r.id, o.leaseMs);
  const running = clusters.filter((c) => c.state === "running");
  // Steps started in an earlier tick and not written yet (due again, or never sent): write (or confirm) them first.
  if (r.status === "running")
    await writeSteps(
      r,
      executor,
      running.filter((c) => !c.writtenAt && !c.claimed && (!c.nextAttemptAt || c.nextAttemptAt <= new Date())).map((c) => c.name),
      o,
    );
  await followSteps(
    r,
    executor,
    running.filter((c) => c.writtenAt),
    now,
  );
  await settleBraked(r, executor, clusters, now);
  if (r.status !== "running") return;

  const fresh = await runnerClusters(r.id, o.leaseMs);
  const waves = (await rolloutWaves(r.id)).map((w) => ({
    index: w.index,
    name: w.name,
    mandatory: w.mandatory,
    releasedAt: w.releasedAt ? new Date(w.releasedAt) : null,
  }));
  const labels = new Map(fresh.map((c) => [c.name, c.labels]));
  const frozen = new Map(fresh.map((c) => [c.name, c.frozenWindow]));
  const decisions = decideProgress(
    waves,
    fresh,
    strategyOf(request, failureBudget(request.strategy, fresh.length)),
    now,
    windowResolver(
      request.windows,
      (c) => labels.get(c) ?? {},
      (c) => frozen.get(c),
    ),
  );
  const toStart: string[] = [];
  for (const d of decisions) {
    if (d.type === "time-out")
      await changeRolloutClusters(r.id, [d.cluster], ["running"], { state: "failed", reason: d.reason, finishedAt: now });
    else if (d.type === "pause")
      await changeRolloutStatus(
        r.id,
        ["running"],
        "paused",
        { reason: d.reason },
        systemAudit(r, "rollout.pause", `paused rollout ${r.number}: ${d.reason}`),
      );
    else if (d.type === "complete")
      await changeRolloutStatus(
        r.id,
        ["running"],
        "completed",
        { reason: null, finished: true },
        systemAudit(r, "rollout.complete", `rollout ${r.number} completed`),
      );
    else if (d.type === "wait-for-window")
      await changeRolloutClusters(r.id, [d.cluster], ["pending", "waiting-window"], {
        state: "waiting-window",
        windowOpensAt: d.opensAt,
        reason: null,
      });
    else if (d.type === "start") toStart.push(d.cluster);
  }
  // The intent first, conditional on the state: only the clusters this tick moved to running are written.
  const started = await changeRolloutClusters(r.id, toStart, ["pending", "waiting-window"], {
    state: "running",
    startedAt: now,
    windowOpensAt: null,
    reason: null,
  });
  await writeSteps(r, executor, started, o);
}

/** One tick over every rollout that is running or paused, or has braked steps to follow; one rollout's trouble does not stop the others. */
export async function advanceRollouts(now = new Date(), o: RunnerOptions = DEFAULT_RUNNER_OPTIONS): Promise<void> {
  for (const r of await rolloutsToAdvance()) {
    await advanceRollout(r, now, o).catch((error: unknown) => console.error(`fleetskew: rollout ${r.number}:`, error));
  }
}
