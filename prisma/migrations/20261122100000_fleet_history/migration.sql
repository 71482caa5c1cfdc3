-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "offline" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "ClusterState" (
    "clusterId" UUID NOT NULL,
    "snapshot" JSONB NOT NULL,
    "factHashes" JSONB NOT NULL,
    "observedAt" TIMESTAMP(3) NOT NULL,
    "lastSeenAt" TIMESTAMP(3) NOT NULL,
    "version" TEXT,
    "skewStatus" TEXT NOT NULL,
    "skewSummary" TEXT NOT NULL,
    "enforcementMode" TEXT,
    "oldestBootImage" TEXT,
    "readinessTarget" TEXT,
    "readinessStatus" TEXT NOT NULL,
    "readinessBlocker" TEXT,

    CONSTRAINT "ClusterState_pkey" PRIMARY KEY ("clusterId")
);

-- CreateTable
CREATE TABLE "ClusterFact" (
    "id" BIGSERIAL NOT NULL,
    "clusterId" UUID NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "fact" TEXT NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "value" JSONB,
    "inferred" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ClusterFact_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SweepSchedule" (
    "clusterId" UUID NOT NULL,
    "nextSweepAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "failures" INTEGER NOT NULL DEFAULT 0,
    "lastSweepAt" TIMESTAMP(3),
    "lastDurationMs" INTEGER,
    "lastError" TEXT,

    CONSTRAINT "SweepSchedule_pkey" PRIMARY KEY ("clusterId")
);

-- CreateTable
CREATE TABLE "BootImageCatalogEntry" (
    "key" TEXT NOT NULL,
    "rhcosBuild" TEXT NOT NULL,
    "ocpVersion" TEXT,
    "sourceCluster" TEXT NOT NULL,
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BootImageCatalogEntry_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "CollectorStat" (
    "worker" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "sweeps" INTEGER NOT NULL DEFAULT 0,
    "errors" INTEGER NOT NULL DEFAULT 0,
    "durationMs" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "CollectorStat_pkey" PRIMARY KEY ("worker")
);

-- CreateIndex
CREATE INDEX "ClusterState_skewStatus_idx" ON "ClusterState"("skewStatus");

-- CreateIndex
CREATE INDEX "ClusterState_readinessStatus_idx" ON "ClusterState"("readinessStatus");

-- CreateIndex
CREATE INDEX "ClusterFact_clusterId_at_idx" ON "ClusterFact"("clusterId", "at");

-- CreateIndex
CREATE INDEX "ClusterFact_fact_at_idx" ON "ClusterFact"("fact", "at");

-- CreateIndex
CREATE INDEX "SweepSchedule_nextSweepAt_idx" ON "SweepSchedule"("nextSweepAt");

-- AddForeignKey
ALTER TABLE "ClusterState" ADD CONSTRAINT "ClusterState_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ClusterFact" ADD CONSTRAINT "ClusterFact_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SweepSchedule" ADD CONSTRAINT "SweepSchedule_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

