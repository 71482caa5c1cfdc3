/**
 * Moves running rollouts on, one tick at a time, from what the database holds: whichever process
 * runs the tick (one at a time, as a background job) takes the same decisions. A step is recorded as
 * started before its cluster is written, recorded as written after, and followed on the cluster
 * until it succeeds or fails; a step started but never recorded as written (the process stopped in
 * between) is written again, which the write itself turns into a confirmation when the cluster
 * already has it.
 */
import { resolveAmount } from "../domain/rollouts/amount";
import { decideProgress, type ProgressStrategy } from "../domain/rollouts/progress";
import type { RolloutRequest } from "../domain/rollouts/request";
import {
  changeRolloutClusters,
  changeRolloutStatus,
  rolloutsToAdvance,
  rolloutWaves,
  runnerClusters,
  type RolloutRecord,
  type RunnerCluster,
} from "../store/rollouts";
import { EXECUTORS, StepRefused, type Executor } from "./executors";
import { eachLimited } from "./limited";
import { EXPECTED_STEP_MS, windowResolver } from "./plan";
import { clusterAnswer } from "../clusters/access";

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
    progressDeadlineMs: s.progressDeadline,
    failureBudget,
    onFailure: s.onFailure,
    releaseEachWave: s.releaseEachWave,
    stepMs: EXPECTED_STEP_MS[request.kind],
  };
}

/** The failure budget as planned: maxFailures over the clusters the rollout includes. */
const failureBudget = (request: RolloutRequest, included: number) => resolveAmount(request.strategy.maxFailures, included);

/** Writes steps that were started and not yet recorded as written; a definite refusal fails the cluster. */
async function writeSteps(r: RolloutRecord, executor: Executor, names: string[]): Promise<void> {
  await eachLimited(names, CONCURRENCY, async (name) => {
    try {
      await executor.write(name, r);
      await changeRolloutClusters(r.id, [name], ["running"], { writtenAt: new Date(), reason: null });
    } catch (error) {
      if (error instanceof StepRefused) {
        await changeRolloutClusters(r.id, [name], ["running"], { state: "failed", reason: error.message, finishedAt: new Date() });
      } else {
        // Not known whether the cluster took it: the next tick reads the cluster and writes or confirms.
        await changeRolloutClusters(r.id, [name], ["running"], { reason: `not confirmed yet: ${clusterAnswer(error)}` });
      }
    }
  });
}

async function followSteps(r: RolloutRecord, executor: Executor, clusters: RunnerCluster[]): Promise<void> {
  await eachLimited(clusters, CONCURRENCY, async (c) => {
    const progress = await executor
      .follow(c.name, r)
      .catch((error: unknown) => ({ state: "running" as const, note: `cannot reach it now: ${clusterAnswer(error)}` }));
    if (progress.state === "running") await changeRolloutClusters(r.id, [c.name], ["running"], { reason: progress.note });
    else
      await changeRolloutClusters(r.id, [c.name], ["running"], {
        state: progress.state,
        reason: progress.state === "failed" ? progress.reason : null,
        finishedAt: new Date(),
      });
  });
}

export async function advanceRollout(r: RolloutRecord, now = new Date()): Promise<void> {
  const request = r.request as RolloutRequest;
  const executor = EXECUTORS[request.kind];
  if (!executor) return;
  const clusters = await runnerClusters(r.id);
  const running = clusters.filter((c) => c.state === "running");
  // Steps started in an earlier tick and not recorded as written: write (or confirm) them first.
  await writeSteps(
    r,
    executor,
    running.filter((c) => !c.writtenAt).map((c) => c.name),
  );
  await followSteps(
    r,
    executor,
    running.filter((c) => c.writtenAt),
  );
  if (r.status !== "running") return;

  const fresh = await runnerClusters(r.id);
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
    strategyOf(request, failureBudget(request, fresh.length)),
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
  await writeSteps(r, executor, started);
}

/** One tick over every rollout that is running or paused; one rollout's trouble does not stop the others. */
export async function advanceRollouts(now = new Date()): Promise<void> {
  for (const r of await rolloutsToAdvance()) {
    await advanceRollout(r, now).catch((error: unknown) => console.error(`fleetskew: rollout ${r.number}:`, error));
  }
}
