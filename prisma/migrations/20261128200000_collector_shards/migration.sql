-- AlterTable
ALTER TABLE "SweepSchedule" ADD COLUMN     "lastSweptBy" TEXT;

-- CreateTable
CREATE TABLE "CollectorShard" (
    "shard" TEXT NOT NULL,
    "owner" TEXT,
    "expiresAt" TIMESTAMP(3),
    "heldSince" TIMESTAMP(3),

    CONSTRAINT "CollectorShard_pkey" PRIMARY KEY ("shard")
);

-- CreateTable
CREATE TABLE "CollectorMember" (
    "worker" TEXT NOT NULL,
    "seenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CollectorMember_pkey" PRIMARY KEY ("worker")
);

-- CreateIndex
CREATE INDEX "CollectorMember_seenAt_idx" ON "CollectorMember"("seenAt");

