-- CreateTable
CREATE TABLE "ClusterPreviewInputs" (
    "clusterId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "objects" JSONB NOT NULL,
    "observedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ClusterPreviewInputs_pkey" PRIMARY KEY ("clusterId")
);

-- AddForeignKey
ALTER TABLE "ClusterPreviewInputs" ADD CONSTRAINT "ClusterPreviewInputs_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

