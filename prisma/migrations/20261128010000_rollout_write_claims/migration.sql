-- AlterTable
ALTER TABLE "RolloutCluster" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "claimedAt" TIMESTAMP(3),
ADD COLUMN     "claimedBy" UUID,
ADD COLUMN     "nextAttemptAt" TIMESTAMP(3),
ADD COLUMN     "outcome" TEXT;
