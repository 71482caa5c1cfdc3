-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "hubCredentialsVersion" TEXT;

-- AlterTable
ALTER TABLE "Hub" ADD COLUMN     "access" TEXT NOT NULL DEFAULT 'impersonation';

-- AlterTable
ALTER TABLE "HubMember" ADD COLUMN     "desiredVersion" TEXT,
ADD COLUMN     "nodes" INTEGER,
ADD COLUMN     "readyNodes" INTEGER,
ADD COLUMN     "upgradeFailed" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "version" TEXT;

