-- Sign-in attempts are now throttled per (username, address) and failures aggregated per address and
-- window; the old per-attempt rows were only ever kept for 30 minutes and are not carried over.
-- Preview inputs gain a sealed form; rows written before it are sealed by the start (see docs/security.md).

-- AlterTable
ALTER TABLE "ClusterPreviewInputs" ADD COLUMN     "sealed" BYTEA,
ALTER COLUMN "objects" DROP NOT NULL;

-- DropTable
DROP TABLE "LoginAttempt";

-- CreateTable
CREATE TABLE "LoginThrottle" (
    "username" TEXT NOT NULL,
    "ip" TEXT NOT NULL,
    "windowStartedAt" TIMESTAMP(3) NOT NULL,
    "attempts" INTEGER NOT NULL,
    "lastAttemptAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LoginThrottle_pkey" PRIMARY KEY ("username","ip")
);

-- CreateTable
CREATE TABLE "LoginFailureWindow" (
    "ip" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "refused" INTEGER NOT NULL DEFAULT 0,
    "reported" INTEGER NOT NULL DEFAULT 0,
    "usernames" TEXT[],
    "firstAt" TIMESTAMP(3) NOT NULL,
    "lastAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LoginFailureWindow_pkey" PRIMARY KEY ("ip","windowStart")
);

-- CreateIndex
CREATE INDEX "LoginThrottle_windowStartedAt_idx" ON "LoginThrottle"("windowStartedAt");

-- CreateIndex
CREATE INDEX "LoginFailureWindow_windowStart_idx" ON "LoginFailureWindow"("windowStart");

