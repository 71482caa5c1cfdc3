-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "openshiftClusterId" TEXT;

-- CreateTable
CREATE TABLE "RegistrationJob" (
    "id" UUID NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdByRole" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    "labels" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "RegistrationJob_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RegistrationJobItem" (
    "id" UUID NOT NULL,
    "jobId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "context" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "apiUrl" TEXT NOT NULL,
    "sealedCredentials" BYTEA,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "reason" TEXT,
    "clusterName" TEXT,
    "openshiftVersion" TEXT,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "RegistrationJobItem_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RegistrationJobItem_status_leaseExpiresAt_idx" ON "RegistrationJobItem"("status", "leaseExpiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "RegistrationJobItem_jobId_position_key" ON "RegistrationJobItem"("jobId", "position");

-- CreateIndex
CREATE INDEX "Cluster_openshiftClusterId_idx" ON "Cluster"("openshiftClusterId");

-- AddForeignKey
ALTER TABLE "RegistrationJobItem" ADD CONSTRAINT "RegistrationJobItem_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "RegistrationJob"("id") ON DELETE CASCADE ON UPDATE CASCADE;

