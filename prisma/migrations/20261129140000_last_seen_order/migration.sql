-- The fleet list sorted by last seen, and its stale filter, at 100,000 clusters: both read the
-- summaries' last-seen time, which no index covered, so each window joined every summary (0.3 to
-- 0.8 s at 100,000, docs/benchmarks.md). The fleet index cannot hold that time: every sweep moves it,
-- and the index is written only when a summary changes. So the summaries get an index on it (their
-- updates already write a new version of every index entry, being too wide for heap-only updates,
-- so one more entry at the right edge of a time-ordered tree is the cost), and the fleet index says
-- which clusters have no summary yet (they sort as never seen), which changes once per cluster.

ALTER TABLE "FleetIndex" ADD COLUMN "swept" BOOLEAN NOT NULL DEFAULT false;

UPDATE "FleetIndex" k SET "swept" = true WHERE EXISTS (SELECT 1 FROM "ClusterState" s WHERE s."clusterId" = k."clusterId");

CREATE OR REPLACE FUNCTION "fleet_index_state"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "FleetIndex" SET "version" = NULL, "minor" = 'unknown', "versionKey" = '{999999}', "oldestKey" = '{999999}',
                            "skewStatus" = 'unknown', "skewRank" = 4, "readinessStatus" = 'unknown', "readinessRank" = 3,
                            "mode" = 'unknown', "blocker" = NULL, "registryLess" = false, "swept" = false
     WHERE "clusterId" = OLD."clusterId";
    RETURN NULL;
  END IF;
  UPDATE "FleetIndex" SET
    "version" = NEW."version",
    "minor" = coalesce(substring(NEW."version" from '^[0-9]+\.[0-9]+'), 'unknown'),
    "versionKey" = "fleet_version_key"(NEW."version"),
    "oldestKey" = "fleet_version_key"(NEW."oldestBootImage"),
    "skewStatus" = coalesce(NEW."skewStatus", 'unknown'),
    "skewRank" = array_position(ARRAY['blocked','at-risk','opted-out','unknown','ok'], coalesce(NEW."skewStatus", 'unknown')),
    "readinessStatus" = coalesce(NEW."readinessStatus", 'unknown'),
    "readinessRank" = array_position(ARRAY['fail','warn','unknown','pass'], coalesce(NEW."readinessStatus", 'unknown')),
    "mode" = coalesce(NEW."enforcementMode", 'unknown'),
    "blocker" = NEW."readinessBlocker",
    "registryLess" = coalesce(NEW."registryLess", false),
    "swept" = true
   WHERE "clusterId" = NEW."clusterId";
  RETURN NULL;
END $$;

-- The last-seen sort walks this, and the stale filter and count read its oldest end.
CREATE INDEX "ClusterState_lastSeenAt_idx" ON "ClusterState"("lastSeenAt");
-- The clusters never swept, which sort before every other by last seen.
CREATE INDEX "FleetIndex_name_not_swept_idx" ON "FleetIndex"("name") WHERE NOT "swept";
-- The clusters whose last contact failed: stale whatever their last-seen time.
CREATE INDEX "FleetIndex_contactFailed_idx" ON "FleetIndex"("clusterId") WHERE "contactFailed";

ANALYZE "FleetIndex";
ANALYZE "ClusterState";
