-- AlterTable
ALTER TABLE "ClusterState" ADD COLUMN     "registryLess" BOOLEAN NOT NULL DEFAULT false;


-- Clusters read before the column existed: registry-less when their snapshot has an InternalReleaseImage.
UPDATE "ClusterState" SET "registryLess" = true WHERE jsonb_typeof("snapshot" -> 'internalReleaseImage') = 'object';
