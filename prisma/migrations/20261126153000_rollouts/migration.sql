-- CreateTable
CREATE TABLE "Rollout" (
    "id" UUID NOT NULL,
    "number" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "statusReason" TEXT,
    "request" JSONB NOT NULL,
    "createdById" UUID NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "approvedBy" TEXT,
    "approvedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "estimateMs" BIGINT,

    CONSTRAINT "Rollout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RolloutWave" (
    "rolloutId" UUID NOT NULL,
    "index" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "mandatory" BOOLEAN NOT NULL DEFAULT false,
    "releasedAt" TIMESTAMP(3),
    "releasedBy" TEXT,

    CONSTRAINT "RolloutWave_pkey" PRIMARY KEY ("rolloutId","index")
);

-- CreateTable
CREATE TABLE "RolloutCluster" (
    "rolloutId" UUID NOT NULL,
    "clusterName" TEXT NOT NULL,
    "clusterId" UUID,
    "wave" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "reason" TEXT,
    "includedBy" TEXT,
    "includedWhy" TEXT,
    "windowOpensAt" TIMESTAMP(3),
    "startedAt" TIMESTAMP(3),
    "writtenAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "RolloutCluster_pkey" PRIMARY KEY ("rolloutId","clusterName")
);

-- CreateIndex
CREATE UNIQUE INDEX "Rollout_number_key" ON "Rollout"("number");

-- CreateIndex
CREATE INDEX "Rollout_status_idx" ON "Rollout"("status");

-- CreateIndex
CREATE INDEX "RolloutCluster_clusterName_idx" ON "RolloutCluster"("clusterName");

-- CreateIndex
CREATE INDEX "RolloutCluster_rolloutId_state_idx" ON "RolloutCluster"("rolloutId", "state");

-- AddForeignKey
ALTER TABLE "RolloutWave" ADD CONSTRAINT "RolloutWave_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RolloutCluster" ADD CONSTRAINT "RolloutCluster_rolloutId_fkey" FOREIGN KEY ("rolloutId") REFERENCES "Rollout"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The rollout runner's recurring job (server/runtime/background.ts): its queue is a partition of
-- pgboss.job, which only the owner can create.
SELECT pgboss.create_queue('rollouts', '{"policy":"stately","retryLimit":0,"expireInSeconds":120}');
