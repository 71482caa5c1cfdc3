-- The fleet's skew over time (the fleet page's chart) at 100,000 clusters: counted from every change
-- of the fleet's history each time it was asked, it took 7.6 to 8.0 s when not already shared
-- (docs/benchmarks.md). The history before a day changes only when someone writes into the past (a
-- first sweep's inferred history, an import) or a cluster is removed, so the fleet-wide sums of those
-- days are kept: for each day, each value of the fact's field, how many clusters took it that day less
-- how many left it ("" holds the change in how many clusters' value is inferred). The chart reads
-- them and counts only the changes since "through" (docs/history.md, "The fleet's skew over time").

CREATE TABLE "FleetFactDay" (
    "fact" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "value" TEXT NOT NULL,
    "delta" INTEGER NOT NULL,

    CONSTRAINT "FleetFactDay_pkey" PRIMARY KEY ("fact","field","day","value")
);

-- Each cluster's value at "through", from its last change before it: what its first change since
-- leaves, found here rather than in every month of its history.
CREATE TABLE "FleetFactThrough" (
    "fact" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "clusterId" UUID NOT NULL,
    "value" TEXT,
    "inferred" BOOLEAN NOT NULL,

    CONSTRAINT "FleetFactThrough_pkey" PRIMARY KEY ("fact","field","clusterId")
);

ALTER TABLE "FleetFactThrough" ADD CONSTRAINT "FleetFactThrough_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Which sums are kept, until when, and since when they no longer hold ("dirtySince": the earliest
-- change written into their past since they were summed; '-infinity' when never summed or a cluster
-- was removed).
CREATE TABLE "FleetFactDayKept" (
    "fact" TEXT NOT NULL,
    "field" TEXT NOT NULL,
    "through" TIMESTAMP(3) NOT NULL DEFAULT '-infinity'::timestamp without time zone,
    "dirtySince" TIMESTAMP(3) DEFAULT '-infinity'::timestamp without time zone,
    "refreshedAt" TIMESTAMP(3),

    CONSTRAINT "FleetFactDayKept_pkey" PRIMARY KEY ("fact","field")
);

INSERT INTO "FleetFactDayKept" ("fact", "field") VALUES ('skew', 'status');

-- A change written into the summed past marks the sums. The lock is shared among writers and taken
-- exclusively by a summing (server/store/history.ts refreshFleetFactDays), which therefore waits for
-- every writer that may have written into its past to commit, and is waited for by those that come
-- after it: no change is left out of both the sums and the mark. A sweep writes the present and takes
-- no lock; an hour's margin covers a transaction in flight across the summing's day boundary.
CREATE FUNCTION "fleet_fact_day_mark"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  past RECORD;
BEGIN
  FOR past IN
    SELECT a."fact", min(a."at") AS "since" FROM added a
     WHERE a."at" < (now() AT TIME ZONE 'UTC') - interval '1 hour'
       AND a."fact" IN (SELECT k."fact" FROM "FleetFactDayKept" k)
     GROUP BY a."fact"
  LOOP
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('FleetFactDay', 0));
    UPDATE "FleetFactDayKept" SET "dirtySince" = past."since"
     WHERE "fact" = past."fact" AND past."since" < "through" AND ("dirtySince" IS NULL OR "dirtySince" > past."since");
  END LOOP;
  RETURN NULL;
END $$;

CREATE TRIGGER "fleet_fact_day_mark" AFTER INSERT ON "ClusterFact"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION "fleet_fact_day_mark"();

-- A removed cluster's history leaves every day it was counted in.
CREATE FUNCTION "fleet_fact_day_forget"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM removed) THEN
    PERFORM pg_advisory_xact_lock_shared(hashtextextended('FleetFactDay', 0));
    UPDATE "FleetFactDayKept" SET "dirtySince" = '-infinity' WHERE "dirtySince" IS DISTINCT FROM '-infinity';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "fleet_fact_day_forget" AFTER DELETE ON "Cluster"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "fleet_fact_day_forget"();

-- The job that sums them again (server/runtime/background.ts): its queue is made here, since the
-- runtime role may not make queues.
SELECT pgboss.create_queue('fleet-days', '{"policy":"stately","retryLimit":0,"expireInSeconds":1800}');
