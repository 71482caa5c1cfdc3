-- A new cluster's first sweep writes its inferred history into the past, which marked the fleet's
-- kept day sums (migration 20261129180000_fleet_fact_days) as no longer holding: in a growing fleet the
-- chart then counted every change of the fleet (6 s at 100,000 clusters, docs/benchmarks.md) until the
-- hourly summing. A cluster's history counts in the sums only through its own changes, so when every
-- row of a cluster's history arrives in one statement, its part of the sums is worked out from those
-- rows alone and appended here; the chart reads these rows with the sums, and the upkeep folds them in.
-- Rows are appended, never updated, so new clusters' first sweeps do not wait for each other.
CREATE TABLE "FleetFactDayAdded" (
    "id" BIGSERIAL NOT NULL,
    "fact" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "value" TEXT NOT NULL,
    "delta" INTEGER NOT NULL,

    CONSTRAINT "FleetFactDayAdded_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "FleetFactDayAdded_fact_field_idx" ON "FleetFactDayAdded"("fact", "field");

-- A change written into the summed past: a cluster whose whole history for the fact is in this
-- statement (a first sweep's, an import's) is added to the sums; any other marks them, as before. The
-- shared lock is the one a summing takes exclusively, so "through" cannot move before this commits;
-- a lock per added cluster keeps two statements from both taking one cluster's history for its first.
CREATE OR REPLACE FUNCTION "fleet_fact_day_mark"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k RECORD;
  since TIMESTAMP(3);
  cluster UUID;
  fresh UUID[];
BEGIN
  FOR k IN
    SELECT DISTINCT kept."fact", kept."field" FROM "FleetFactDayKept" kept
     WHERE EXISTS (SELECT 1 FROM added a WHERE a."fact" = kept."fact" AND a."at" < (now() AT TIME ZONE 'UTC') - interval '1 hour')
  LOOP
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('FleetFactDay', 0));
    -- Read again under the lock: a summing may have just moved "through".
    SELECT min(a."at") INTO since FROM added a, "FleetFactDayKept" kept
     WHERE kept."fact" = k."fact" AND kept."field" = k."field" AND a."fact" = k."fact"
       AND a."at" < kept."through" AND kept."dirtySince" IS NULL;
    CONTINUE WHEN since IS NULL; -- nothing before "through", or already marked

    -- A statement of many clusters (a bulk import) only marks: a lock per cluster would fill the
    -- server's lock table (max_locks_per_transaction), and the hourly summing is as cheap then.
    IF (SELECT count(DISTINCT a."clusterId") FROM added a WHERE a."fact" = k."fact") > 100 THEN
      UPDATE "FleetFactDayKept" SET "dirtySince" = since WHERE "fact" = k."fact" AND "field" = k."field";
      CONTINUE;
    END IF;
    fresh := ARRAY[]::UUID[];
    FOR cluster IN SELECT DISTINCT a."clusterId" FROM added a WHERE a."fact" = k."fact" ORDER BY 1 LOOP
      PERFORM pg_advisory_xact_lock(hashtextextended('FleetFactDay:' || cluster::text, 0));
      IF NOT EXISTS (SELECT 1 FROM "ClusterFact" f WHERE f."clusterId" = cluster AND f."fact" = k."fact"
                        AND f."id" NOT IN (SELECT a."id" FROM added a WHERE a."clusterId" = cluster))
         AND NOT EXISTS (SELECT 1 FROM "ClusterFactDaily" f WHERE f."clusterId" = cluster AND f."fact" = k."fact")
         AND NOT EXISTS (SELECT 1 FROM "FleetFactThrough" t WHERE t."fact" = k."fact" AND t."field" = k."field" AND t."clusterId" = cluster)
      THEN
        fresh := fresh || cluster;
      ELSE
        -- A cluster with history before this statement: its rows change days already summed.
        UPDATE "FleetFactDayKept" SET "dirtySince" = since WHERE "fact" = k."fact" AND "field" = k."field";
        fresh := NULL;
        EXIT;
      END IF;
    END LOOP;
    CONTINUE WHEN fresh IS NULL;

    -- Each fresh cluster's changes before "through", summed per day as the summing does
    -- (server/store/history.ts refreshFleetFactDays), and its value at "through".
    WITH own AS (
      SELECT a."clusterId", a."at", a."id", a."inferred", a."value" ->> k."field" AS "v"
        FROM added a, "FleetFactDayKept" kept
       WHERE a."fact" = k."fact" AND a."clusterId" = ANY(fresh)
         AND kept."fact" = k."fact" AND kept."field" = k."field" AND a."at" < kept."through"
    ), c AS (
      SELECT "clusterId", "at"::date AS "day", nullif("v", '') AS "value", nullif(LAG("v") OVER w, '') AS "previous",
             "inferred"::int - coalesce(LAG("inferred") OVER w, false)::int AS "inferred",
             "v" AS "raw", "inferred" AS "rawInferred", LEAD("at") OVER w IS NULL AS "last"
        FROM own WINDOW w AS (PARTITION BY "clusterId" ORDER BY "at", "id")
    ), t AS (
      INSERT INTO "FleetFactThrough" ("fact", "field", "clusterId", "value", "inferred")
      SELECT k."fact", k."field", "clusterId", "raw", "rawInferred" FROM c WHERE "last"
    )
    INSERT INTO "FleetFactDayAdded" ("fact", "field", "day", "value", "delta")
    SELECT k."fact", k."field", "day", "v", sum("d")::int FROM (
      SELECT "day", "value" AS "v", 1 AS "d" FROM c WHERE "value" IS NOT NULL
      UNION ALL SELECT "day", "previous", -1 FROM c WHERE "previous" IS NOT NULL
      UNION ALL SELECT "day", '', "inferred" FROM c) x
    GROUP BY "day", "v" HAVING sum("d") <> 0;
  END LOOP;
  RETURN NULL;
END $$;
