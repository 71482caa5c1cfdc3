-- CreateTable
CREATE TABLE "WorkSlot" (
    "id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "person" TEXT NOT NULL,
    "process" TEXT NOT NULL,
    "takenAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WorkSlot_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WorkSlot_kind_expiresAt_idx" ON "WorkSlot"("kind", "expiresAt");

