-- What a rollout plan reads of each cluster's snapshot, cut out when the snapshot is written rather
-- than at every plan: a plan over 100,000 clusters read and parsed every snapshot (~10 KB each) and
-- took 6 s (docs/benchmarks.md). Kept by a trigger that runs only when a sweep writes a new
-- snapshot; a steady sweep, which moves only lastSeenAt, does not run it.
--
-- The parts: the ClusterVersion's update lists (each conditional update's version and its risks'
-- names only), whether the cluster serves the boot-image acknowledgement (its MachineConfiguration's
-- enforcement facts), and what the update gates read (server/store/updateGateParts.ts decodes it):
-- ClusterVersion without its history and update lists, the MCO's conditions, the admin gates and
-- acknowledgements, and the read problems.
-- Conditions without their lastTransitionTime ("since"), which no gate reads: clusters of one release
-- and state then have the same gates' parts to the byte, and a plan decodes each distinct one once.
CREATE FUNCTION "fleet_conditions_without_since"(conditions JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(conditions) = 'array' THEN
    (SELECT coalesce(jsonb_agg(CASE WHEN jsonb_typeof(c) = 'object' THEN c - 'since' ELSE c END ORDER BY n), '[]'::jsonb)
       FROM jsonb_array_elements(conditions) WITH ORDINALITY AS e(c, n))
  ELSE conditions END
$$;

CREATE FUNCTION "fleet_plan_parts"(snapshot JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(snapshot) = 'object' THEN jsonb_build_object(
    'availableUpdates',
      CASE WHEN jsonb_typeof(snapshot->'version'->'availableUpdates') = 'array' THEN snapshot->'version'->'availableUpdates' ELSE '[]'::jsonb END,
    'conditionalUpdates',
      (SELECT coalesce(jsonb_agg(jsonb_build_object('version', u->>'version', 'risks',
                (SELECT coalesce(jsonb_agg(jsonb_build_object('name', r->>'name') ORDER BY rn), '[]'::jsonb)
                   FROM jsonb_array_elements(CASE WHEN jsonb_typeof(u->'risks') = 'array' THEN u->'risks' ELSE '[]'::jsonb END)
                        WITH ORDINALITY AS re(r, rn))) ORDER BY un), '[]'::jsonb)
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(snapshot->'version'->'conditionalUpdates') = 'array'
                                        THEN snapshot->'version'->'conditionalUpdates' ELSE '[]'::jsonb END) WITH ORDINALITY AS ue(u, un)),
    'acknowledgementServed', coalesce(snapshot->'enforcement'->>'served' = 'true', false),
    'gates', jsonb_build_object(
      'version', CASE WHEN jsonb_typeof(snapshot->'version') = 'object'
                      THEN (snapshot->'version') - 'history' - 'availableUpdates' - 'conditionalUpdates'
                           || jsonb_build_object('conditions', "fleet_conditions_without_since"(snapshot->'version'->'conditions'))
                      ELSE snapshot->'version' END,
      'machineConfigOperator', "fleet_conditions_without_since"(snapshot->'machineConfigOperator'),
      'adminGates', snapshot->'adminGates', 'adminAcks', snapshot->'adminAcks', 'problems', snapshot->'problems'))
  END
$$;

-- planGatesKey names the gates' parts (their md5): clusters of one release and state share it, so a
-- plan reads each distinct gates' parts once, not once per cluster.
ALTER TABLE "ClusterState" ADD COLUMN "planParts" JSONB, ADD COLUMN "planGatesKey" TEXT;

CREATE FUNCTION "cluster_state_plan_parts"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."planParts" := "fleet_plan_parts"(NEW."snapshot");
  NEW."planGatesKey" := md5((NEW."planParts"->'gates')::text);
  RETURN NEW;
END $$;

CREATE TRIGGER "ClusterState_plan_parts" BEFORE INSERT OR UPDATE OF "snapshot" ON "ClusterState"
  FOR EACH ROW EXECUTE FUNCTION "cluster_state_plan_parts"();

-- Every snapshot already stored (naming the column runs the trigger; nothing else changes).
UPDATE "ClusterState" SET "snapshot" = "snapshot";

CREATE INDEX "ClusterState_planGatesKey_idx" ON "ClusterState"("planGatesKey");
