-- AlterTable
ALTER TABLE "Acknowledgement" ADD COLUMN     "rolloutId" UUID;

-- CreateIndex
CREATE INDEX "Acknowledgement_rolloutId_idx" ON "Acknowledgement"("rolloutId");

