-- The fleet view's index: one narrow row per cluster with what the fleet list filters, sorts,
-- searches and counts by, kept by triggers from "Cluster" and "ClusterState" so that every writer
-- (sweeps, registration, hubs, imports) keeps it true without knowing of it. Reading the list,
-- its counts and its facets from this table instead of joining the two wide, constantly updated
-- ones is what keeps them fast at 100,000 clusters (docs/benchmarks.md). Its rows change only when
-- a cluster's summary changes, not at every sweep, so its pages stay all-visible for index-only scans.

-- Trigram indexes for the list's substring search (trusted since Postgres 13: the database owner may create it).
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- "4.19.10" -> {4,19,10}: versions sort as numbers (4.9 before 4.12); no version sorts last.
CREATE FUNCTION "fleet_version_key"(version TEXT) RETURNS INTEGER[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_to_array(substring(version from '^[0-9]{1,6}\.[0-9]{1,6}(?:\.[0-9]{1,6})?'), '.')::int[], '{999999}')
$$;

CREATE TABLE "FleetIndex" (
    "clusterId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "platform" TEXT NOT NULL DEFAULT 'unknown',
    -- Not contacted by design: imported, or a hub's cluster whose lease expired or that the hub removed.
    "offline" BOOLEAN NOT NULL DEFAULT false,
    -- The last contact failed (lastContactStatus other than ok or unknown).
    "contactFailed" BOOLEAN NOT NULL DEFAULT false,
    "version" TEXT,
    "minor" TEXT NOT NULL DEFAULT 'unknown',
    "versionKey" INTEGER[] NOT NULL DEFAULT '{999999}',
    "oldestKey" INTEGER[] NOT NULL DEFAULT '{999999}',
    "skewStatus" TEXT NOT NULL DEFAULT 'unknown',
    -- Worst first, as the fleet view lists them by default.
    "skewRank" INTEGER DEFAULT 4,
    "readinessStatus" TEXT NOT NULL DEFAULT 'unknown',
    "readinessRank" INTEGER DEFAULT 3,
    "mode" TEXT NOT NULL DEFAULT 'unknown',
    "blocker" TEXT,
    "registryLess" BOOLEAN NOT NULL DEFAULT false,
    -- What the search box matches, lower-cased, the fields apart (a unit separator no search may hold).
    "searchText" TEXT GENERATED ALWAYS AS (
      lower("name" || E'\x1f' || "displayName" || E'\x1f' || coalesce("version", '') || E'\x1f' || "labels"::text)
    ) STORED,

    CONSTRAINT "FleetIndex_pkey" PRIMARY KEY ("clusterId"),
    CONSTRAINT "FleetIndex_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The identity and reach of a cluster, from its "Cluster" row.
CREATE FUNCTION "fleet_index_cluster"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "FleetIndex" ("clusterId", "name", "displayName", "labels", "platform", "offline", "contactFailed")
  VALUES (NEW."id", NEW."name", NEW."displayName", NEW."labels", coalesce(NEW."platform", 'unknown'),
          NEW."offline" OR coalesce(NEW."hubState", 'available') <> 'available',
          NEW."lastContactStatus"::text NOT IN ('ok', 'unknown'))
  ON CONFLICT ("clusterId") DO UPDATE SET
    "name" = EXCLUDED."name", "displayName" = EXCLUDED."displayName", "labels" = EXCLUDED."labels",
    "platform" = EXCLUDED."platform", "offline" = EXCLUDED."offline", "contactFailed" = EXCLUDED."contactFailed";
  RETURN NULL;
END $$;

CREATE TRIGGER "Cluster_fleet_index_insert" AFTER INSERT ON "Cluster"
  FOR EACH ROW EXECUTE FUNCTION "fleet_index_cluster"();
-- Every sweep updates its cluster's row (lastContactAt): only a change the index holds touches it.
CREATE TRIGGER "Cluster_fleet_index_update" AFTER UPDATE ON "Cluster"
  FOR EACH ROW
  WHEN (OLD."name" IS DISTINCT FROM NEW."name" OR OLD."displayName" IS DISTINCT FROM NEW."displayName"
        OR OLD."labels" IS DISTINCT FROM NEW."labels" OR OLD."platform" IS DISTINCT FROM NEW."platform"
        OR OLD."offline" IS DISTINCT FROM NEW."offline" OR OLD."hubState" IS DISTINCT FROM NEW."hubState"
        OR (OLD."lastContactStatus"::text NOT IN ('ok', 'unknown')) IS DISTINCT FROM (NEW."lastContactStatus"::text NOT IN ('ok', 'unknown')))
  EXECUTE FUNCTION "fleet_index_cluster"();

-- The summary of a cluster's newest sweep, from its "ClusterState" row (reset when that row goes).
CREATE FUNCTION "fleet_index_state"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "FleetIndex" SET "version" = NULL, "minor" = 'unknown', "versionKey" = '{999999}', "oldestKey" = '{999999}',
                            "skewStatus" = 'unknown', "skewRank" = 4, "readinessStatus" = 'unknown', "readinessRank" = 3,
                            "mode" = 'unknown', "blocker" = NULL, "registryLess" = false
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
    "registryLess" = coalesce(NEW."registryLess", false)
   WHERE "clusterId" = NEW."clusterId";
  RETURN NULL;
END $$;

CREATE TRIGGER "ClusterState_fleet_index_insert" AFTER INSERT ON "ClusterState"
  FOR EACH ROW EXECUTE FUNCTION "fleet_index_state"();
-- A steady sweep moves only lastSeenAt: the index is not touched.
CREATE TRIGGER "ClusterState_fleet_index_update" AFTER UPDATE ON "ClusterState"
  FOR EACH ROW
  WHEN (OLD."version" IS DISTINCT FROM NEW."version" OR OLD."oldestBootImage" IS DISTINCT FROM NEW."oldestBootImage"
        OR OLD."skewStatus" IS DISTINCT FROM NEW."skewStatus" OR OLD."readinessStatus" IS DISTINCT FROM NEW."readinessStatus"
        OR OLD."enforcementMode" IS DISTINCT FROM NEW."enforcementMode" OR OLD."readinessBlocker" IS DISTINCT FROM NEW."readinessBlocker"
        OR OLD."registryLess" IS DISTINCT FROM NEW."registryLess" OR OLD."clusterId" IS DISTINCT FROM NEW."clusterId")
  EXECUTE FUNCTION "fleet_index_state"();
CREATE TRIGGER "ClusterState_fleet_index_delete" AFTER DELETE ON "ClusterState"
  FOR EACH ROW EXECUTE FUNCTION "fleet_index_state"();

-- Every cluster already registered.
INSERT INTO "FleetIndex" ("clusterId", "name", "displayName", "labels", "platform", "offline", "contactFailed", "version", "minor",
                          "versionKey", "oldestKey", "skewStatus", "skewRank", "readinessStatus", "readinessRank", "mode", "blocker", "registryLess")
SELECT c."id", c."name", c."displayName", c."labels", coalesce(c."platform", 'unknown'),
       c."offline" OR coalesce(c."hubState", 'available') <> 'available', c."lastContactStatus"::text NOT IN ('ok', 'unknown'),
       s."version", coalesce(substring(s."version" from '^[0-9]+\.[0-9]+'), 'unknown'),
       "fleet_version_key"(s."version"), "fleet_version_key"(s."oldestBootImage"),
       coalesce(s."skewStatus", 'unknown'), array_position(ARRAY['blocked','at-risk','opted-out','unknown','ok'], coalesce(s."skewStatus", 'unknown')),
       coalesce(s."readinessStatus", 'unknown'), array_position(ARRAY['fail','warn','unknown','pass'], coalesce(s."readinessStatus", 'unknown')),
       coalesce(s."enforcementMode", 'unknown'), s."readinessBlocker", coalesce(s."registryLess", false)
  FROM "Cluster" c LEFT JOIN "ClusterState" s ON s."clusterId" = c."id";

-- One index per sort, the name last (the tie-break and the keyset cursor's second part).
CREATE UNIQUE INDEX "FleetIndex_name_key" ON "FleetIndex"("name");
CREATE INDEX "FleetIndex_skewRank_name_idx" ON "FleetIndex"("skewRank", "name");
CREATE INDEX "FleetIndex_readinessRank_name_idx" ON "FleetIndex"("readinessRank", "name");
CREATE INDEX "FleetIndex_versionKey_name_idx" ON "FleetIndex"("versionKey", "name");
CREATE INDEX "FleetIndex_oldestKey_name_idx" ON "FleetIndex"("oldestKey", "name");
-- The filters the summary cards link to: their counts are index-only scans.
CREATE INDEX "FleetIndex_skewStatus_idx" ON "FleetIndex"("skewStatus");
CREATE INDEX "FleetIndex_readinessStatus_idx" ON "FleetIndex"("readinessStatus");
CREATE INDEX "FleetIndex_platform_idx" ON "FleetIndex"("platform");
CREATE INDEX "FleetIndex_minor_idx" ON "FleetIndex"("minor");
CREATE INDEX "FleetIndex_blocker_idx" ON "FleetIndex"("blocker");
CREATE INDEX "FleetIndex_searchText_idx" ON "FleetIndex" USING GIN ("searchText" gin_trgm_ops);
CREATE INDEX "FleetIndex_labels_idx" ON "FleetIndex" USING GIN ("labels");

-- The planner's figures for the new table now, not at autovacuum's next pass.
ANALYZE "FleetIndex";

-- The sorts and facets read the index now; these went unused.
DROP INDEX "ClusterState_skewStatus_idx";
DROP INDEX "ClusterState_readinessStatus_idx";
