-- What needs someone's action about a cluster (server/domain/alertSignals.ts), written by the collector
-- beside the snapshot. Rows written before stay NULL until the next sweep rewrites them (the snapshot
-- hash covers the summary, so every cluster is rewritten at its next sweep).
-- AlterTable
ALTER TABLE "ClusterState" ADD COLUMN     "signals" JSONB;
