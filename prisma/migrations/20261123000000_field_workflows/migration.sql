-- AlterTable
ALTER TABLE "AuditEvent" ADD COLUMN     "role" TEXT,
ADD COLUMN     "summary" TEXT;

-- CreateTable
CREATE TABLE "VettedBundle" (
    "digest" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "vettedBy" TEXT NOT NULL,
    "vettedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VettedBundle_pkey" PRIMARY KEY ("digest")
);

-- CreateTable
CREATE TABLE "Bundle" (
    "digest" TEXT NOT NULL,
    "manifest" JSONB NOT NULL,
    "releaseVersion" TEXT NOT NULL,
    "releaseImage" TEXT NOT NULL,
    "imageCount" INTEGER NOT NULL,
    "totalBytes" BIGINT NOT NULL,
    "uploadedBy" TEXT NOT NULL,
    "uploadedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Bundle_pkey" PRIMARY KEY ("digest")
);

-- CreateTable
CREATE TABLE "BundleApplication" (
    "id" UUID NOT NULL,
    "bundleDigest" TEXT NOT NULL,
    "clusterId" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "pools" JSONB NOT NULL,
    "confirmedWarnings" JSONB NOT NULL DEFAULT '[]',
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "lastError" TEXT,
    "upgradeStartedBy" TEXT,
    "upgradeStartedAt" TIMESTAMP(3),
    "overrideReason" TEXT,
    "upgradedAt" TIMESTAMP(3),
    "unpinnedAt" TIMESTAMP(3),

    CONSTRAINT "BundleApplication_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Acknowledgement" (
    "id" UUID NOT NULL,
    "clusterId" UUID NOT NULL,
    "mode" TEXT NOT NULL,
    "ocpVersion" TEXT,
    "rhcosVersion" TEXT,
    "evidence" TEXT NOT NULL,
    "machineSets" JSONB NOT NULL DEFAULT '[]',
    "status" TEXT NOT NULL,
    "requestedById" UUID NOT NULL,
    "requestedBy" TEXT NOT NULL,
    "requestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "baseline" JSONB,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "comment" TEXT,
    "result" TEXT,
    "appliedAt" TIMESTAMP(3),
    "verifiedAt" TIMESTAMP(3),

    CONSTRAINT "Acknowledgement_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "BundleApplication_state_idx" ON "BundleApplication"("state");

-- CreateIndex
CREATE UNIQUE INDEX "BundleApplication_bundleDigest_clusterId_key" ON "BundleApplication"("bundleDigest", "clusterId");

-- CreateIndex
CREATE INDEX "Acknowledgement_status_idx" ON "Acknowledgement"("status");

-- CreateIndex
CREATE INDEX "Acknowledgement_clusterId_idx" ON "Acknowledgement"("clusterId");

-- AddForeignKey
ALTER TABLE "BundleApplication" ADD CONSTRAINT "BundleApplication_bundleDigest_fkey" FOREIGN KEY ("bundleDigest") REFERENCES "Bundle"("digest") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BundleApplication" ADD CONSTRAINT "BundleApplication_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Acknowledgement" ADD CONSTRAINT "Acknowledgement_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- The audit trail is append-only: no role the console connects with can rewrite or remove it.
CREATE FUNCTION "audit_event_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % of AuditEvent is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER "AuditEvent_append_only"
  BEFORE UPDATE OR DELETE ON "AuditEvent"
  FOR EACH ROW EXECUTE FUNCTION "audit_event_append_only"();

CREATE TRIGGER "AuditEvent_no_truncate"
  BEFORE TRUNCATE ON "AuditEvent"
  FOR EACH STATEMENT EXECUTE FUNCTION "audit_event_append_only"();
