-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "hubId" UUID,
ADD COLUMN     "hubState" TEXT;

-- CreateTable
CREATE TABLE "Hub" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "apiUrl" TEXT NOT NULL,
    "proxyUrl" TEXT NOT NULL,
    "encryptedCredentials" BYTEA NOT NULL,
    "concurrency" INTEGER NOT NULL DEFAULT 20,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSyncStatus" TEXT NOT NULL DEFAULT 'pending',
    "lastSyncAt" TIMESTAMP(3),
    "lastSyncError" TEXT,

    CONSTRAINT "Hub_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HubMember" (
    "hubId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "eligibility" TEXT NOT NULL,
    "reason" TEXT,
    "clusterSet" TEXT,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "registeredAs" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "HubMember_pkey" PRIMARY KEY ("hubId","name")
);

-- CreateIndex
CREATE UNIQUE INDEX "Hub_name_key" ON "Hub"("name");

-- CreateIndex
CREATE INDEX "Cluster_hubId_idx" ON "Cluster"("hubId");

-- AddForeignKey
ALTER TABLE "Cluster" ADD CONSTRAINT "Cluster_hubId_fkey" FOREIGN KEY ("hubId") REFERENCES "Hub"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HubMember" ADD CONSTRAINT "HubMember_hubId_fkey" FOREIGN KEY ("hubId") REFERENCES "Hub"("id") ON DELETE CASCADE ON UPDATE CASCADE;

