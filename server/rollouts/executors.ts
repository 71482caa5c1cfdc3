/**
 * What a rollout writes to one cluster, and how it follows the result there. The write reads the
 * cluster first and does nothing when the step is already in place, so a runner that stopped between
 * writing and recording it confirms the write instead of repeating it.
 */
import { writeAcknowledgement } from "../acknowledgements/acknowledgements";
import { acknowledgeForRollout, rolloutAcknowledgementOf, type RolloutAcknowledgement } from "../acknowledgements/forRollout";
import { clusterAnswer, withClusterClient } from "../clusters/access";
import { startClusterUpgrade, UpgradeRefused } from "../clusters/upgrade";
import { UserFacingError } from "../errors";
import type { RolloutRequest } from "../domain/rollouts/request";
import { upgradeProgress } from "../domain/rollouts/upgradeProgress";
import { readClusterVersion, readMachineConfigPools } from "../kube/readers";
import type { RolloutRecord } from "../store/rolloutRecords";
import { bundle } from "./bundleExecutor";
import { observedPools } from "./observedPools";
import { requestOfKind, StepRefused, type Executor } from "./step";

export { StepRefused, type Executor };

const systemActor = (rollout: RolloutRecord) => ({ actor: `rollout ${rollout.number}`, role: null, ip: null });

const upgrade: Executor = {
  async write(cluster, rollout, attempt) {
    const { target, acceptRisks } = requestOfKind(rollout, "upgrade");
    try {
      await startClusterUpgrade(cluster, {
        who: systemActor(rollout),
        version: target,
        acceptRisks,
        details: { rollout: rollout.number },
        attempt,
      });
    } catch (error) {
      if (error instanceof UpgradeRefused) throw new StepRefused(error.message);
      throw error;
    }
  },
  async follow(cluster, rollout) {
    const { target } = requestOfKind(rollout, "upgrade");
    return withClusterClient(cluster, async (client) => {
      const [cv, pools] = await Promise.all([readClusterVersion(client), readMachineConfigPools(client)]);
      if (cv.status !== "ok")
        return { state: "running", note: `cannot read ClusterVersion now: ${cv.status === "error" ? clusterAnswer(cv.error) : cv.reason}` };
      const status = cv.value.status;
      return upgradeProgress(
        target,
        {
          desiredVersion: cv.value.spec?.desiredUpdate?.version ?? null,
          history: status?.history ?? [],
          conditions: status?.conditions ?? [],
        },
        observedPools(pools),
      );
    });
  },
};

/**
 * An acknowledgement is made for the cluster as already approved (with the rollout), then written
 * and verified by the acknowledgement follower as any other: its outcome is the rollout step's.
 */
const acknowledgement: Executor = {
  async write(cluster, rollout) {
    const { acknowledgement: ack } = requestOfKind(rollout, "acknowledgement");
    try {
      const made = await acknowledgeForRollout(cluster, ack as RolloutAcknowledgement, {
        id: rollout.id,
        number: rollout.number,
        createdById: rollout.createdById,
        createdBy: rollout.createdBy,
        approvedBy: rollout.approvedBy ?? "an approver",
      });
      // Made but not written yet (this tick, or a runner that stopped in between): write it now.
      if (made.status === "applying") {
        const written = await writeAcknowledgement(made, systemActor(rollout));
        if (written.status === "failed") throw new StepRefused(written.result ?? "the cluster did not take it");
      }
    } catch (error) {
      if (error instanceof UserFacingError && error.status < 500) throw new StepRefused(error.message);
      throw error;
    }
  },
  async follow(cluster, rollout) {
    const ack = await rolloutAcknowledgementOf(rollout.id, cluster);
    if (!ack) return { state: "running", note: "the acknowledgement has not been made yet" };
    if (ack.status === "applied")
      return ack.verifiedAt ? { state: "succeeded" } : { state: "running", note: ack.result ?? "waiting for the MCO" };
    if (ack.status === "applying") return { state: "running", note: "being written" };
    return { state: "failed", reason: ack.result ?? `the acknowledgement is ${ack.status}` };
  },
};

export const EXECUTORS: Partial<Record<RolloutRequest["kind"], Executor>> = { upgrade, acknowledgement, bundle };
