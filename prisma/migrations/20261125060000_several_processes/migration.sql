-- CreateTable
CREATE TABLE "SecretKeyRecord" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "keyId" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "recordedBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SecretKeyRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BackgroundJob" (
    "name" TEXT NOT NULL,
    "nextRunAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseOwner" TEXT,
    "leaseExpiresAt" TIMESTAMP(3),
    "lastStartedAt" TIMESTAMP(3),
    "lastFinishedAt" TIMESTAMP(3),
    "lastError" TEXT,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "failures" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "BackgroundJob_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "ProcessHeartbeat" (
    "process" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "pid" INTEGER NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "seenAt" TIMESTAMP(3) NOT NULL,
    "rssBytes" BIGINT NOT NULL,
    "cpuSeconds" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "ProcessHeartbeat_pkey" PRIMARY KEY ("process")
);

-- CreateIndex
CREATE INDEX "ProcessHeartbeat_seenAt_idx" ON "ProcessHeartbeat"("seenAt");


-- One row only: the deployment's current key.
ALTER TABLE "SecretKeyRecord" ADD CONSTRAINT "SecretKeyRecord_one_row" CHECK ("id" = 1);
