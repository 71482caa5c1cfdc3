/** What every rollout executor is, and how it says a cluster refused its step. */
import type { StepProgress } from "../domain/rollouts/upgradeProgress";
import type { RolloutRecord } from "../store/rolloutRecords";

/** The cluster answered and refused: the step failed, in the cluster's words. */
export class StepRefused extends Error {}

/** Which attempt at a step's write this is: failures that leave the outcome unknown are audited once, with the last. */
export type WriteAttempt = { number: number; last: boolean };

export type Executor = {
  write(cluster: string, rollout: RolloutRecord, attempt: WriteAttempt): Promise<void>;
  /**
   * Reports the step's progress. With `mayWrite` false (a rollout not running, a step skipped) it
   * writes nothing to the cluster; with it true, a follow-up write is still made only after its
   * own check that the rollout and the step are running.
   */
  follow(cluster: string, rollout: RolloutRecord, mayWrite: boolean): Promise<StepProgress>;
};

type Kind = RolloutRecord["request"]["kind"];

/** The rollout's request as the kind its executor writes; another kind is a wiring mistake, said plainly. */
export function requestOfKind<K extends Kind>(rollout: RolloutRecord, kind: K): Extract<RolloutRecord["request"], { kind: K }> {
  const request = rollout.request;
  if (request.kind !== kind) throw new Error(`rollout ${rollout.number} is a ${request.kind} rollout, not ${kind}`);
  return request as Extract<RolloutRecord["request"], { kind: K }>;
}
