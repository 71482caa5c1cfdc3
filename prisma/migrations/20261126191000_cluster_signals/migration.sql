-- What needs someone's action about a cluster (server/domain/alertSignals.ts), written by the collector
-- beside the snapshot. Rows written before stay NULL until the next sweep rewrites them (the snapshot
-- hash covers the summary, so every cluster is rewritten at its next sweep).
-- AlterTable
ALTER TABLE "ClusterState" ADD COLUMN     "signals" JSONB;

-- /metrics and the alert list read only the clusters that need action: partial indexes keep that
-- read as small as the trouble (not in schema.prisma, which cannot express a partial index).
CREATE INDEX "ClusterState_signals_idx" ON "ClusterState" ("clusterId") WHERE "signals" IS NOT NULL;
CREATE INDEX "SweepSchedule_failing_idx" ON "SweepSchedule" ("clusterId") WHERE "failures" > 0;
