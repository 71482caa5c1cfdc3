-- Approval is of a version of the plan: the digest the approver approved is kept with the rollout,
-- and each cluster's maintenance window is resolved from its labels at approval and kept, so a
-- label changed afterwards does not move it. Rollouts approved before keep NULL and are read as
-- before (labels at run time).
-- AlterTable
ALTER TABLE "Rollout" ADD COLUMN     "approvedDigest" TEXT;

-- AlterTable
ALTER TABLE "RolloutCluster" ADD COLUMN     "frozenWindow" JSONB,
ADD COLUMN     "windowFrozenAt" TIMESTAMP(3);
