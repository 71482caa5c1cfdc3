/** What every rollout executor is, and how it says a cluster refused its step. */
import type { StepProgress } from "../domain/rollouts/upgradeProgress";
import type { RolloutRecord } from "../store/rollouts";

/** The cluster answered and refused: the step failed, in the cluster's words. */
export class StepRefused extends Error {}

export type Executor = {
  write(cluster: string, rollout: RolloutRecord): Promise<void>;
  follow(cluster: string, rollout: RolloutRecord): Promise<StepProgress>;
};
