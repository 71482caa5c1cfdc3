-- History partitioned by month of "at" (docs/history.md). The existing rows are copied into the
-- partitioned table with their ids; months that hold rows get a partition each (at most ten years
-- back), and so do this month and the next three; anything else lands in the default partition,
-- which fleetskew_keep_history() folds away or moves into a month's partition when one is made.

ALTER TABLE "ClusterFact" RENAME TO "ClusterFact_unpartitioned";
ALTER TABLE "ClusterFact_unpartitioned" RENAME CONSTRAINT "ClusterFact_pkey" TO "ClusterFact_unpartitioned_pkey";
ALTER TABLE "ClusterFact_unpartitioned" RENAME CONSTRAINT "ClusterFact_clusterId_fkey" TO "ClusterFact_unpartitioned_clusterId_fkey";
ALTER INDEX "ClusterFact_clusterId_at_idx" RENAME TO "ClusterFact_unpartitioned_clusterId_at_idx";
ALTER INDEX "ClusterFact_fact_at_idx" RENAME TO "ClusterFact_unpartitioned_fact_at_idx";
ALTER SEQUENCE "ClusterFact_id_seq" OWNED BY NONE;

CREATE TABLE "ClusterFact" (
    "id" BIGINT NOT NULL DEFAULT nextval('"ClusterFact_id_seq"'),
    "clusterId" UUID NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "fact" TEXT NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "value" JSONB,
    "inferred" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ClusterFact_pkey" PRIMARY KEY ("id", "at")
) PARTITION BY RANGE ("at");
ALTER SEQUENCE "ClusterFact_id_seq" OWNED BY "ClusterFact"."id";
CREATE INDEX "ClusterFact_clusterId_at_idx" ON "ClusterFact"("clusterId", "at");
CREATE INDEX "ClusterFact_fact_at_idx" ON "ClusterFact"("fact", "at");
ALTER TABLE "ClusterFact" ADD CONSTRAINT "ClusterFact_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE TABLE "ClusterFact_default" PARTITION OF "ClusterFact" DEFAULT;

DO $$
DECLARE
  first date := (SELECT GREATEST(date_trunc('month', min("at")), date_trunc('month', now() AT TIME ZONE 'UTC') - interval '120 months')::date
                   FROM "ClusterFact_unpartitioned");
  this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  m date;
BEGIN
  -- This month and the next three, whatever the table holds.
  FOR i IN 0..3 LOOP
    m := (this_month + make_interval(months => i))::date;
    EXECUTE format('CREATE TABLE %I PARTITION OF "ClusterFact" FOR VALUES FROM (%L) TO (%L)',
                   'ClusterFact_' || to_char(m, 'YYYY_MM'), m, (m + interval '1 month')::date);
  END LOOP;
  -- Past months that hold rows.
  FOR m IN SELECT DISTINCT date_trunc('month', "at")::date FROM "ClusterFact_unpartitioned"
            WHERE "at" >= first AND "at" < this_month ORDER BY 1 LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "ClusterFact" FOR VALUES FROM (%L) TO (%L)',
                   'ClusterFact_' || to_char(m, 'YYYY_MM'), m, (m + interval '1 month')::date);
  END LOOP;
END $$;

INSERT INTO "ClusterFact" ("id", "clusterId", "at", "fact", "key", "value", "inferred")
SELECT "id", "clusterId", "at", "fact", "key", "value", "inferred" FROM "ClusterFact_unpartitioned";
DROP TABLE "ClusterFact_unpartitioned";
SELECT setval('"ClusterFact_id_seq"', GREATEST((SELECT max("id") FROM "ClusterFact"), 1));

-- CreateTable
CREATE TABLE "ClusterFactDaily" (
    "clusterId" UUID NOT NULL,
    "day" DATE NOT NULL,
    "fact" TEXT NOT NULL,
    "key" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMP(3) NOT NULL,
    "value" JSONB,
    "inferred" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "ClusterFactDaily_pkey" PRIMARY KEY ("clusterId","fact","key","day")
);
CREATE INDEX "ClusterFactDaily_fact_at_idx" ON "ClusterFactDaily"("fact", "at");
ALTER TABLE "ClusterFactDaily" ADD CONSTRAINT "ClusterFactDaily_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Keeps the history's partitions: makes this month's and the next `ahead` months' partitions (moving
-- in any row the default partition took for them), folds every month that ended before
-- `detail_before` into one row a day per fact (the last change of the day) and drops it, does the
-- same for the default partition's rows before `detail_before`, and deletes daily rows before
-- `daily_before` except the newest of each fact (the state the kept history opens with).
-- SECURITY DEFINER: it runs as the owner of the tables, so a console running under a role that may
-- only read and write rows (docs/deploy.md) can still make and drop partitions through it, and
-- nothing else.
CREATE FUNCTION fleetskew_keep_history(detail_before timestamp, daily_before timestamp, ahead integer)
RETURNS TABLE (created integer, dropped integer, folded bigint, pruned bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $fn$
DECLARE
  this_month date := date_trunc('month', now() AT TIME ZONE 'UTC')::date;
  m date;
  part text;
  n bigint;
BEGIN
  created := 0; dropped := 0; folded := 0; pruned := 0;
  FOR i IN 0..GREATEST(ahead, 0) LOOP
    m := (this_month + make_interval(months => i))::date;
    part := 'ClusterFact_' || to_char(m, 'YYYY_MM');
    CONTINUE WHEN to_regclass(quote_ident(part)) IS NOT NULL;
    CREATE TEMP TABLE fleetskew_moving ON COMMIT DROP AS
      SELECT * FROM "ClusterFact_default" WHERE false;
    WITH moved AS (DELETE FROM "ClusterFact_default" WHERE "at" >= m AND "at" < (m + interval '1 month') RETURNING *)
      INSERT INTO fleetskew_moving SELECT * FROM moved;
    EXECUTE format('CREATE TABLE %I PARTITION OF "ClusterFact" FOR VALUES FROM (%L) TO (%L)', part, m, (m + interval '1 month')::date);
    INSERT INTO "ClusterFact" SELECT * FROM fleetskew_moving;
    DROP TABLE fleetskew_moving;
    created := created + 1;
  END LOOP;

  FOR part, m IN
    SELECT c.relname, to_date(substr(c.relname, 13), 'YYYY_MM')
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = '"ClusterFact"'::regclass AND c.relname ~ '^ClusterFact_[0-9]{4}_[0-9]{2}$'
     ORDER BY 2
  LOOP
    CONTINUE WHEN (m + interval '1 month') > detail_before;
    EXECUTE format(
      'INSERT INTO "ClusterFactDaily" ("clusterId", "day", "fact", "key", "at", "value", "inferred")
       SELECT DISTINCT ON ("clusterId", "fact", "key", "day") "clusterId", "at"::date AS "day", "fact", "key", "at", "value", "inferred"
         FROM %I ORDER BY "clusterId", "fact", "key", "day", "at" DESC, "id" DESC
       ON CONFLICT ("clusterId", "fact", "key", "day") DO UPDATE
         SET "at" = EXCLUDED."at", "value" = EXCLUDED."value", "inferred" = EXCLUDED."inferred"
       WHERE EXCLUDED."at" >= "ClusterFactDaily"."at"', part);
    GET DIAGNOSTICS n = ROW_COUNT;
    folded := folded + n;
    EXECUTE format('DROP TABLE %I', part);
    dropped := dropped + 1;
  END LOOP;

  INSERT INTO "ClusterFactDaily" ("clusterId", "day", "fact", "key", "at", "value", "inferred")
  SELECT DISTINCT ON ("clusterId", "fact", "key", "day") "clusterId", "at"::date AS "day", "fact", "key", "at", "value", "inferred"
    FROM "ClusterFact_default" WHERE "at" < detail_before
   ORDER BY "clusterId", "fact", "key", "day", "at" DESC, "id" DESC
  ON CONFLICT ("clusterId", "fact", "key", "day") DO UPDATE
    SET "at" = EXCLUDED."at", "value" = EXCLUDED."value", "inferred" = EXCLUDED."inferred"
  WHERE EXCLUDED."at" >= "ClusterFactDaily"."at";
  GET DIAGNOSTICS n = ROW_COUNT;
  folded := folded + n;
  DELETE FROM "ClusterFact_default" WHERE "at" < detail_before;

  DELETE FROM "ClusterFactDaily" d
   WHERE d."at" < daily_before
     AND EXISTS (SELECT 1 FROM "ClusterFactDaily" newer
                  WHERE newer."clusterId" = d."clusterId" AND newer."fact" = d."fact" AND newer."key" = d."key"
                    AND newer."at" < daily_before AND newer."at" > d."at");
  GET DIAGNOSTICS n = ROW_COUNT;
  pruned := n;
  RETURN NEXT;
END
$fn$;
