/**
 * A rollout's acknowledgement on one cluster: the request the rollout carries, approved once for
 * all its clusters when the rollout was approved, made here for one cluster as already approved.
 * From then on it is an acknowledgement like any other: `followAcknowledgements` writes it to the
 * cluster (refusing when the cluster's value changed since it was read) and checks that the MCO took
 * it, and the acknowledgements page lists it with the rollout that made it.
 */
import type { AcknowledgementRequest } from "../domain/acknowledgements";
import { UserFacingError } from "../errors";
import {
  findRolloutAcknowledgement,
  insertAcknowledgement,
  listAcknowledgements,
  type AcknowledgementRecord,
} from "../store/acknowledgements";
import { acknowledgedValue, currentSpec, liveClusterWithSnapshot, newAcknowledgement } from "./acknowledgements";

export type RolloutAcknowledgement = Omit<AcknowledgementRequest, "cluster" | "machineSets">;
export type AcknowledgingRollout = { id: string; number: number; createdById: string; createdBy: string; approvedBy: string };

/** Makes (once) the rollout's acknowledgement for `clusterName`, or says in words why it cannot. */
export async function acknowledgeForRollout(
  clusterName: string,
  ack: RolloutAcknowledgement,
  rollout: AcknowledgingRollout,
): Promise<AcknowledgementRecord> {
  const cluster = await liveClusterWithSnapshot(clusterName);
  const made = await findRolloutAcknowledgement(rollout.id, cluster.id);
  if (made) return made;
  if (!cluster.snapshot.enforcement?.served)
    throw new UserFacingError(409, `${clusterName}'s API has no spec.bootImageSkewEnforcement; there is nothing to acknowledge`);
  const open = (await listAcknowledgements({ clusterId: cluster.id, statuses: ["pending", "applying"] }))[0];
  if (open) throw new UserFacingError(409, `a request for ${clusterName} by ${open.requestedBy} is already ${open.status}`);
  const value = acknowledgedValue(ack);
  return insertAcknowledgement(
    {
      ...newAcknowledgement(
        cluster.id,
        ack,
        { id: rollout.createdById, username: rollout.createdBy },
        await currentSpec(cluster.name, cluster.snapshot),
      ),
      rollout: { id: rollout.id, approvedBy: rollout.approvedBy, comment: `approved with rollout ${rollout.number}` },
    },
    {
      actor: `rollout ${rollout.number}`,
      role: null,
      action: "acknowledgement.request",
      targetType: "cluster",
      targetId: cluster.name,
      summary: `rollout ${rollout.number} acknowledged boot image ${value} on ${cluster.name}, approved by ${rollout.approvedBy}`,
      details: { mode: ack.mode, value, rollout: rollout.number },
    },
  );
}

/** Where a rollout's acknowledgement on one cluster stands: null when it has not been made. */
export async function rolloutAcknowledgementOf(rolloutId: string, clusterName: string): Promise<AcknowledgementRecord | null> {
  const cluster = await liveClusterWithSnapshot(clusterName).catch(() => null);
  return cluster ? findRolloutAcknowledgement(rolloutId, cluster.id) : null;
}
