import { clipText } from "../domain/clip";
import type { SkewStatus } from "../domain/clusterSkew";
import type { CheckStatus } from "../domain/readiness";
import { getDb } from "./db";
import type { Reach } from "../domain/grants";
import { adder, reachSql } from "./scope";
import type { ClusterSignals } from "../domain/alertSignals";
import type { ClusterSnapshot } from "../domain/snapshot";
import { decodeSnapshot } from "./snapshotCodec";
import type { Prisma } from "./generated/prisma/client";
import { inTransaction, type Sql, utc } from "./sqlTransaction";
import type { ContactStatus } from "./clusters";

/**
 * Fleet history. The newest snapshot of a cluster lives in ClusterState; ClusterFact holds one row
 * per change of one fact. A sweep writes everything it learned in one transaction, and only while
 * its lease is held, so a worker killed mid-sweep leaves nothing half-written, and a sweep repeated
 * by another worker finds the facts unchanged and writes no duplicate.
 */
export type FactValue = { fact: string; key: string; value: unknown; hash: string };
export type InferredFact = { fact: string; key: string; value: unknown; at: Date };

export type StateSummary = {
  version: string | null;
  skewStatus: SkewStatus;
  skewSummary: string;
  enforcementMode: string | null;
  oldestBootImage: string | null;
  readinessTarget: string | null;
  readinessStatus: CheckStatus;
  readinessBlocker: string | null;
  /** Installed without a registry: the snapshot has an InternalReleaseImage. */
  registryLess: boolean;
  /** What needs action (alerts); null for a healthy cluster. */
  signals: ClusterSignals | null;
};

export type SweepSuccess = {
  clusterId: string;
  worker: string;
  at: Date;
  snapshot: unknown;
  snapshotHash: string;
  facts: FactValue[];
  summary: StateSummary;
  /** Written only on first contact (no state yet): the approximate past. */
  backfill: InferredFact[];
  catalog: { key: string; rhcosBuild: string; ocpVersion: string | null }[];
  clusterName: string;
  platform: string | null;
  durationMs: number;
  nextSweepAt: Date;
};

export type SweepOutcome = "written" | "unchanged" | "lease-lost";

const SNAPSHOT_KEY = "_snapshot";
const factKey = (f: { fact: string; key: string }) => `${f.fact}/${f.key}`;

/** What one read of a cluster (a sweep or an offline capture) adds to its state and history. */
export type Observation = Pick<SweepSuccess, "clusterId" | "at" | "snapshot" | "snapshotHash" | "facts" | "summary" | "backfill">;

/** A JSON value as text for a jsonb parameter; undefined (a fact that went away) is SQL NULL. */
const jsonText = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/**
 * Writes an observation inside the caller's transaction: history rows for the facts that changed
 * (and the backfill, on first contact), and the newest state; when nothing changed, only the time
 * the cluster was last seen moves. The JSON goes as text (./sqlTransaction.ts says why).
 */
export async function writeObservation(sql: Sql, input: Observation): Promise<{ changed: boolean; rows: number }> {
  const [state] = await sql.rows<{ factHashes: Record<string, string> | null }>(
    `SELECT "factHashes" FROM "ClusterState" WHERE "clusterId" = $1::uuid`,
    [input.clusterId],
  );
  const previous = state?.factHashes ?? {};
  const hashes: Record<string, string> = { [SNAPSHOT_KEY]: input.snapshotHash };
  const rows: { at: Date; fact: string; key: string; value: string | null; inferred: boolean }[] = [];
  if (!state) for (const b of input.backfill) rows.push({ at: b.at, fact: b.fact, key: b.key, value: jsonText(b.value), inferred: true });
  for (const f of input.facts) {
    const k = factKey(f);
    hashes[k] = f.hash;
    if (previous[k] !== f.hash) rows.push({ at: input.at, fact: f.fact, key: f.key, value: jsonText(f.value), inferred: false });
  }
  for (const k of Object.keys(previous)) {
    if (k === SNAPSHOT_KEY || k in hashes) continue;
    const slash = k.indexOf("/");
    rows.push({ at: input.at, fact: k.slice(0, slash), key: k.slice(slash + 1), value: null, inferred: false });
  }
  if (rows.length) {
    await sql.rows(
      `INSERT INTO "ClusterFact" ("clusterId", "at", "fact", "key", "value", "inferred")
       SELECT $1::uuid, r."at", r."fact", r."key", r."value"::jsonb, r."inferred"
         FROM unnest($2::timestamp(3)[], $3::text[], $4::text[], $5::text[], $6::boolean[]) AS r("at", "fact", "key", "value", "inferred")`,
      [
        input.clusterId,
        rows.map((r) => utc(r.at)),
        rows.map((r) => r.fact),
        rows.map((r) => r.key),
        rows.map((r) => r.value),
        rows.map((r) => r.inferred),
      ],
    );
  }

  const changed = previous[SNAPSHOT_KEY] !== input.snapshotHash;
  const at = utc(input.at);
  const s = input.summary;
  const summary = [s.version, s.skewStatus, s.skewSummary, s.enforcementMode, s.oldestBootImage, s.readinessTarget];
  const more = [s.readinessStatus, s.readinessBlocker, s.registryLess, jsonText(s.signals ?? undefined)];
  if (!state) {
    await sql.rows(
      `INSERT INTO "ClusterState" ("clusterId", "snapshot", "factHashes", "observedAt", "lastSeenAt", "version", "skewStatus",
                                   "skewSummary", "enforcementMode", "oldestBootImage", "readinessTarget", "readinessStatus",
                                   "readinessBlocker", "registryLess", "signals")
       VALUES ($1::uuid, $2::jsonb, $3::jsonb, $4::timestamp(3), $4::timestamp(3), $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)`,
      [input.clusterId, JSON.stringify(input.snapshot), JSON.stringify(hashes), at, ...summary, ...more],
    );
  } else if (changed || rows.length) {
    await sql.rows(
      `UPDATE "ClusterState"
          SET "snapshot" = $2::jsonb, "factHashes" = $3::jsonb, "observedAt" = $4::timestamp(3), "lastSeenAt" = $4::timestamp(3),
              "version" = $5, "skewStatus" = $6, "skewSummary" = $7, "enforcementMode" = $8, "oldestBootImage" = $9,
              "readinessTarget" = $10, "readinessStatus" = $11, "readinessBlocker" = $12, "registryLess" = $13, "signals" = $14::jsonb
        WHERE "clusterId" = $1::uuid`,
      [input.clusterId, JSON.stringify(input.snapshot), JSON.stringify(hashes), at, ...summary, ...more],
    );
  } else {
    await sql.rows(`UPDATE "ClusterState" SET "lastSeenAt" = $2::timestamp(3) WHERE "clusterId" = $1::uuid`, [input.clusterId, at]);
  }
  return { changed, rows: rows.length };
}

/** New boot images for the shared catalog; one already there keeps its first source. */
export async function addToCatalog(sql: Sql, catalog: SweepSuccess["catalog"], clusterName: string): Promise<void> {
  if (!catalog.length) return;
  await sql.rows(
    `INSERT INTO "BootImageCatalogEntry" ("key", "rhcosBuild", "ocpVersion", "sourceCluster")
     SELECT c."key", c."rhcosBuild", c."ocpVersion", $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS c("key", "rhcosBuild", "ocpVersion")
     ON CONFLICT ("key") DO NOTHING`,
    [catalog.map((c) => c.key), catalog.map((c) => c.rhcosBuild), catalog.map((c) => c.ocpVersion), clusterName],
  );
}

export type UnchangedSweep = Pick<SweepSuccess, "clusterId" | "worker" | "at" | "snapshotHash" | "durationMs" | "nextSweepAt">;

/**
 * The common case: the cluster looks exactly as last time, so only the times move (last seen, last
 * contact, next sweep), on condition that this worker still holds the lease. One statement for many
 * sweeps (the collector gathers those that end together, server/collector/unchangedSweeps.ts).
 * Returns the clusters recorded; for the others the snapshot differs or the lease is gone, and
 * `recordSweepSuccess` decides.
 */
export async function recordUnchangedSweeps(worker: string, sweeps: UnchangedSweep[]): Promise<Set<string>> {
  if (sweeps.length === 0) return new Set();
  const column = <T>(pick: (s: UnchangedSweep) => T) => sweeps.map(pick);
  const rows = await getDb().$queryRaw<{ id: string }[]>`
    WITH input AS (
      SELECT * FROM unnest(${column((s) => s.clusterId)}::uuid[], ${column((s) => s.snapshotHash)}::text[],
                           ${column((s) => utc(s.at))}::timestamp(3)[], ${column((s) => utc(s.nextSweepAt))}::timestamp(3)[],
                           ${column((s) => Math.round(s.durationMs))}::int[])
        AS i("clusterId", "hash", "at", "next", "duration")
    ), same AS (
      SELECT l."clusterId", i."at", i."next", i."duration"
        FROM "SweepSchedule" l JOIN input i ON i."clusterId" = l."clusterId" JOIN "ClusterState" s ON s."clusterId" = l."clusterId"
       WHERE l."leaseOwner" = ${worker} AND s."factHashes" ->> ${SNAPSHOT_KEY} = i."hash"
       ORDER BY l."clusterId"
         FOR UPDATE OF l
    ), state AS (
      UPDATE "ClusterState" s SET "lastSeenAt" = same."at" FROM same WHERE s."clusterId" = same."clusterId" RETURNING 1
    ), cluster AS (
      UPDATE "Cluster" c SET "lastContactAt" = same."at", "lastContactStatus" = 'ok', "lastContactError" = NULL
        FROM same WHERE c."id" = same."clusterId" RETURNING 1
    ), schedule AS (
      UPDATE "SweepSchedule" l
         SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "nextSweepAt" = same."next", "failures" = 0,
             "lastSweepAt" = same."at", "lastDurationMs" = same."duration", "lastError" = NULL, "lastSweptBy" = ${worker}
        FROM same WHERE l."clusterId" = same."clusterId" RETURNING 1
    )
    SELECT "clusterId"::text AS id FROM same`;
  return new Set(rows.map((r) => r.id));
}

export async function recordSweepSuccess(input: SweepSuccess): Promise<SweepOutcome> {
  return inTransaction(async (sql) => {
    // Fencing: the lease row is locked and must still be ours.
    const lease = await sql.rows<{ leaseOwner: string | null }>(
      `SELECT "leaseOwner" FROM "SweepSchedule" WHERE "clusterId" = $1::uuid FOR UPDATE`,
      [input.clusterId],
    );
    if (lease.length > 0 && lease[0]!.leaseOwner !== input.worker) return "lease-lost";

    // The cluster's row before its summary: the fleet index's triggers lock its row from both, and
    // an edit of the cluster (labels, name) locks them in this order too, so the two never deadlock.
    const at = utc(input.at);
    await sql.rows(
      `UPDATE "Cluster"
          SET "lastContactAt" = $2::timestamp(3), "lastContactStatus" = 'ok', "lastContactError" = NULL,
              "platform" = COALESCE($3, "platform"), "updatedAt" = $4::timestamp(3)
        WHERE "id" = $1::uuid`,
      [input.clusterId, at, input.platform || null, utc(new Date())],
    );
    const { changed, rows } = await writeObservation(sql, input);
    await sql.rows(
      `UPDATE "SweepSchedule"
          SET "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "nextSweepAt" = $2::timestamp(3), "failures" = 0,
              "lastSweepAt" = $3::timestamp(3), "lastDurationMs" = $4, "lastError" = NULL, "lastSweptBy" = $5
        WHERE "clusterId" = $1::uuid`,
      [input.clusterId, utc(input.nextSweepAt), at, Math.round(input.durationMs), input.worker],
    );
    await addToCatalog(sql, input.catalog, input.clusterName);
    return changed || rows ? "written" : "unchanged";
  });
}

export type SweepFailure = {
  clusterId: string;
  worker: string;
  at: Date;
  status: Exclude<ContactStatus, "ok" | "unknown">;
  error: string;
  durationMs: number;
  nextSweepAt: Date;
};

/**
 * A failed sweep keeps the last good state and history; only the contact status and schedule move.
 * The error carries the cluster's own words (its Status message): clipped as it is stored.
 */
export async function recordSweepFailure(failure: SweepFailure): Promise<SweepOutcome> {
  const input = { ...failure, error: clipText(failure.error) };
  return getDb().$transaction(async (tx) => {
    const lease = await tx.$queryRaw<{ leaseOwner: string | null }[]>`
      SELECT "leaseOwner" FROM "SweepSchedule" WHERE "clusterId" = ${input.clusterId}::uuid FOR UPDATE`;
    if (lease.length > 0 && lease[0]!.leaseOwner !== input.worker) return "lease-lost";
    await tx.cluster.update({
      where: { id: input.clusterId },
      data: { lastContactAt: input.at, lastContactStatus: input.status, lastContactError: input.error },
    });
    await tx.sweepSchedule.updateMany({
      where: { clusterId: input.clusterId },
      data: {
        leaseOwner: null,
        leaseExpiresAt: null,
        nextSweepAt: input.nextSweepAt,
        failures: { increment: 1 },
        lastSweepAt: input.at,
        lastDurationMs: Math.round(input.durationMs),
        lastError: input.error,
        lastSweptBy: input.worker,
      },
    });
    return "written";
  });
}

export type CatalogEntry = { key: string; rhcosBuild: string; ocpVersion: string | null };

export async function loadCatalog(): Promise<CatalogEntry[]> {
  return getDb().bootImageCatalogEntry.findMany({ select: { key: true, rhcosBuild: true, ocpVersion: true } });
}

/** A cluster's newest state; `snapshot` is null when the stored one does not decode (snapshotCodec.ts). */
export type StoredState = StateSummary & { snapshot: ClusterSnapshot | null; observedAt: string; lastSeenAt: string };

export async function findClusterState(clusterId: string): Promise<StoredState | null> {
  const row = await getDb().clusterState.findUnique({ where: { clusterId }, omit: { factHashes: true } });
  if (!row) return null;
  const { clusterId: _id, observedAt, lastSeenAt, skewStatus, readinessStatus, signals, snapshot, ...rest } = row;
  return {
    ...rest,
    snapshot: decodeSnapshot(snapshot, clusterId),
    signals: signals as ClusterSignals | null,
    // Written from StateSummary only (recordSweep, recordOfflineCapture).
    skewStatus: skewStatus as SkewStatus,
    readinessStatus: readinessStatus as CheckStatus,
    observedAt: observedAt.toISOString(),
    lastSeenAt: lastSeenAt.toISOString(),
  };
}

export type FactRow = { at: string; fact: string; key: string; value: unknown; inferred: boolean };

/**
 * A cluster's facts of the given kinds between from and to, plus the newest row before `from` for
 * each fact/key (the state the window opens with).
 */
export async function factsInWindow(clusterId: string, facts: string[], from: Date, to: Date): Promise<FactRow[]> {
  // History is the recent detail (ClusterFact, partitioned by month) and, past its retention, one row
  // a day (ClusterFactDaily): read as one, the daily rows first at equal times (they are older).
  const rows = await getDb().$queryRaw<{ at: Date; fact: string; key: string; value: unknown; inferred: boolean }[]>`
    (SELECT DISTINCT ON ("fact", "key") "at", "fact", "key", "value", "inferred", "id"
       FROM (SELECT "at", "fact", "key", "value", "inferred", "id" FROM "ClusterFact"
              WHERE "clusterId" = ${clusterId}::uuid AND "fact" = ANY(${facts}) AND "at" < ${from}
             UNION ALL
             SELECT "at", "fact", "key", "value", "inferred", 0::bigint FROM "ClusterFactDaily"
              WHERE "clusterId" = ${clusterId}::uuid AND "fact" = ANY(${facts}) AND "at" < ${from}) before
      ORDER BY "fact", "key", "at" DESC, "id" DESC)
    UNION ALL
    (SELECT "at", "fact", "key", "value", "inferred", "id"
       FROM "ClusterFact"
      WHERE "clusterId" = ${clusterId}::uuid AND "fact" = ANY(${facts}) AND "at" >= ${from} AND "at" <= ${to})
    UNION ALL
    (SELECT "at", "fact", "key", "value", "inferred", 0::bigint
       FROM "ClusterFactDaily"
      WHERE "clusterId" = ${clusterId}::uuid AND "fact" = ANY(${facts}) AND "at" >= ${from} AND "at" <= ${to})
    ORDER BY "at", "id"`;
  return rows.map((r) => ({ at: r.at.toISOString(), fact: r.fact, key: r.key, value: r.value, inferred: r.inferred }));
}

/** Steps of time ending at `firstEnd`, `firstEnd + stepMs`, ... (`count` of them). */
export type TimeSteps = { firstEnd: Date; stepMs: number; count: number };

/** One step's change: +n for a value clusters took, -n for one they left, or the inferred count's (`value` null). */
export type StepDelta = { step: number; value: string | null; delta: number };

/**
 * A fact's changes, each with the value before it in its cluster's history: `rows` yields "clusterId",
 * "at", "id" (0 for daily rows, which are older at equal times), "inferred" and the field's text "v".
 * A value of "" counts as none.
 */
const changesOf = (rows: string, more = "") =>
  `SELECT "clusterId", "at", nullif("v", '') AS "value", nullif(LAG("v") OVER w, '') AS "previous",
          "inferred"::int - coalesce(LAG("inferred") OVER w, false)::int AS "inferred"${more}
     FROM (${rows}) f WINDOW w AS (PARTITION BY "clusterId" ORDER BY "at", "id")`;

/** A fact's detail and daily rows as `changesOf` reads them, each table's rows limited by `where`. */
const factRows = (where: string, join = "") =>
  `SELECT f."clusterId", f."at", f."id", f."inferred", f."value" ->> $2::text AS "v" FROM "ClusterFact" f ${join} WHERE ${where}
   UNION ALL
   SELECT f."clusterId", f."at", 0::bigint, f."inferred", f."value" ->> $2::text FROM "ClusterFactDaily" f ${join} WHERE ${where}`;

/**
 * Changes grouped three ways in one pass, by `key` and the value taken, by `key` and the value left,
 * and by `key` alone (the inferred count): GROUPING is 1, 2 and 3 in turn.
 */
const grouped = (key: string, changes: string, where: string) =>
  `SELECT ${key} AS "key", "value", "previous", GROUPING("value", "previous") AS "set", count(*)::int AS "n", sum("inferred")::int AS "inferred"
     FROM (${changes}) c WHERE ${where}
    GROUP BY GROUPING SETS ((${key}, "value"), (${key}, "previous"), (${key}))`;

type Group<K> = { key: K; value: string | null; previous: string | null; set: number; n: number; inferred: number };

function deltasOf<K>(groups: Group<K>[]): { key: K; value: string | null; delta: number }[] {
  const deltas: { key: K; value: string | null; delta: number }[] = [];
  for (const g of groups) {
    if (g.set === 1 && g.value !== null) deltas.push({ key: g.key, value: g.value, delta: g.n });
    else if (g.set === 2 && g.previous !== null) deltas.push({ key: g.key, value: g.previous, delta: -g.n });
    else if (g.set === 3 && g.inferred !== 0) deltas.push({ key: g.key, value: null, delta: g.inferred });
  }
  return deltas;
}

/** The step of a time (an SQL expression): 0 before the first step's end. */
const stepOf = (at: string, firstEnd: string, stepMs: string) =>
  `CASE WHEN ${at} < ${firstEnd}::timestamp THEN 0 ELSE floor(extract(epoch FROM ${at} - ${firstEnd}::timestamp) * 1000 / ${stepMs}::bigint)::int + 1 END`;

/**
 * How one fact's value changed across the fleet in each step: per step, +1 for each value a cluster
 * took and -1 for the value it left (`value`), and the change in how many clusters' current value is
 * inferred (`value` null). Changes before the first step fall in it; those after the last are left out.
 * Summed in the database, so a year of 100,000 clusters' changes is a few thousand rows here, not
 * millions. For the whole fleet, the days the database keeps summed (FleetFactDay) are read as they
 * are and only the changes since are counted, while the sums hold (otherwise, every change).
 * Steps must be whole UTC days (`firstEnd` at midnight, `stepMs` a multiple of a day).
 */
export async function fleetFactDeltas(fact: string, field: string, reach: Reach, steps: TimeSteps): Promise<StepDelta[]> {
  if (reach.kind === "fleet") {
    const kept = await keptDeltas(fact, field, steps);
    if (kept) return kept;
  }
  // Within reach: only the history of clusters the reader reaches counts (a cluster is judged by its
  // labels now, so a cluster moved out of a set leaves the reader's chart altogether).
  const values: unknown[] = [fact, field, utc(steps.firstEnd), steps.stepMs, steps.count];
  const inReach = reachSql(reach, adder(values), "rc");
  const join = reach.kind === "fleet" ? "" : `JOIN "Cluster" rc ON rc."id" = f."clusterId" AND ${inReach}`;
  // JIT compilation is off: it cost this one statement 1.5 s of its 10 at 100,000 clusters, and the
  // statement is run far too rarely to gain from it.
  const groups = await inTransaction(async (sql) => {
    await sql.rows("SET LOCAL jit = off");
    return sql.rows<Group<number>>(
      grouped(
        `"step"`,
        `SELECT ${stepOf(`"at"`, "$3", "$4")} AS "step", * FROM (${changesOf(factRows(`f."fact" = $1::text`, join))}) s`,
        `"step" < $5::int`,
      ),
      values,
    );
  });
  return deltasOf(groups)
    .map(({ key, value, delta }) => ({ step: key, value, delta }))
    .sort((a, b) => a.step - b.step);
}

/**
 * The kept days' sums in their steps, and the changes since they were summed counted from history;
 * null when the field is not kept or its sums no longer hold (until they are summed again, the whole
 * history is read: a summing waits for writers, and is left to the background).
 */
async function keptDeltas(fact: string, field: string, steps: TimeSteps): Promise<StepDelta[] | null> {
  const firstEnd = steps.firstEnd.getTime();
  const stepOfDay = (day: number) => (day < firstEnd ? 0 : Math.floor((day - firstEnd) / steps.stepMs) + 1);
  // One snapshot for the sums, their `through` and each cluster's value then, so that a summing in
  // between cannot count a day twice.
  return inTransaction(async (sql) => {
    await sql.rows("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    await sql.rows("SET LOCAL jit = off");
    const days = await sql.rows<{ through: string; dirty: boolean; day: string | null; value: string | null; delta: number | null }>(
      `SELECT k."through"::text AS "through", k."dirtySince" IS NOT NULL AS "dirty", d."day"::text AS "day", d."value", d."delta"
         FROM "FleetFactDayKept" k LEFT JOIN (SELECT "fact", "field", "day", "value", "delta" FROM "FleetFactDay"
                                               UNION ALL
                                               SELECT "fact", "field", "day", "value", "delta" FROM "FleetFactDayAdded") d
           ON d."fact" = k."fact" AND d."field" = k."field"
        WHERE k."fact" = $1 AND k."field" = $2`,
      [fact, field],
    );
    if (days.length === 0 || days[0]!.dirty) return null;
    const deltas: StepDelta[] = [];
    for (const d of days) {
      if (d.day === null || d.delta === null) continue;
      const step = stepOfDay(Date.parse(`${d.day}T00:00:00Z`));
      if (step < steps.count) deltas.push({ step, value: d.value === "" ? null : d.value, delta: d.delta });
    }
    // Each cluster changed since `through` also brings its value then: what its first change since left.
    // A lookup per cluster (LIMIT 1 keeps the planner from joining the whole table instead, which it
    // did at 100,000 clusters while the table's statistics still described it empty: 57 s).
    const since = `WITH "recent" AS (${factRows(`f."fact" = $1::text AND f."at" >= $3::timestamp`)})
      SELECT * FROM "recent"
      UNION ALL
      SELECT t.* FROM (SELECT DISTINCT "clusterId" FROM "recent") r CROSS JOIN LATERAL (
        SELECT t."clusterId", '-infinity'::timestamp, 0::bigint, t."inferred", t."value" FROM "FleetFactThrough" t
         WHERE t."fact" = $1::text AND t."field" = $2::text AND t."clusterId" = r."clusterId" LIMIT 1) t`;
    const groups = await sql.rows<Group<number>>(
      grouped(
        `"step"`,
        `SELECT ${stepOf(`"at"`, "$4", "$5")} AS "step", * FROM (${changesOf(since)}) s`,
        `"at" >= $3::timestamp AND "step" < $6::int`,
      ),
      [fact, field, days[0]!.through, utc(steps.firstEnd), steps.stepMs, steps.count],
    );
    for (const { key, value, delta } of deltasOf(groups)) deltas.push({ step: key, value, delta });
    return deltas.sort((a, b) => a.step - b.step);
  });
}

/**
 * Sums a fact's field across the fleet for every day before today (less an hour's margin, as the
 * marking triggers have it) again, from the whole history, and clears the mark: the background's
 * upkeep (server/runtime/background.ts). Waits for every writer that may have written into
 * their past (an exclusive lock, which the triggers take shared; migration
 * 20261129180000_fleet_fact_days). Does nothing when the field is not kept.
 */
async function refreshFleetFactDays(fact: string, field: string): Promise<void> {
  await inTransaction(async (sql) => {
    await sql.rows("SET LOCAL jit = off");
    await sql.rows(`SELECT pg_advisory_xact_lock(hashtextextended('FleetFactDay', 0))`);
    const [kept] = await sql.rows<{ through: string }>(
      `SELECT date_trunc('day', (now() AT TIME ZONE 'UTC') - interval '1 hour')::text AS "through"
         FROM "FleetFactDayKept" WHERE "fact" = $1 AND "field" = $2 FOR UPDATE`,
      [fact, field],
    );
    if (!kept) return;
    const values = [fact, field, kept.through];
    await sql.rows(`DELETE FROM "FleetFactDay" WHERE "fact" = $1 AND "field" = $2`, [fact, field]);
    await sql.rows(`DELETE FROM "FleetFactDayAdded" WHERE "fact" = $1 AND "field" = $2`, [fact, field]);
    await sql.rows(`DELETE FROM "FleetFactThrough" WHERE "fact" = $1 AND "field" = $2`, [fact, field]);
    // One pass over the history before `through`: the sums per day, and each cluster's last row.
    const changes = changesOf(
      factRows(`f."fact" = $1::text AND f."at" < $3::timestamp`),
      `, "v" AS "raw", f."inferred" AS "rawInferred", LEAD("at") OVER w IS NULL AS "last"`,
    );
    await sql.rows(
      `WITH c AS (SELECT "at"::date AS "day", * FROM (${changes}) s),
            g AS (${grouped(`"day"`, `SELECT * FROM c`, "true")}),
            t AS (INSERT INTO "FleetFactThrough" ("fact", "field", "clusterId", "value", "inferred")
                  SELECT $1, $2, "clusterId", "raw", "rawInferred" FROM c WHERE "last")
       INSERT INTO "FleetFactDay" ("fact", "field", "day", "value", "delta")
       SELECT $1, $2, "key", "v", sum("d")::int FROM (
         SELECT "key", "value" AS "v", "n" AS "d" FROM g WHERE "set" = 1 AND "value" IS NOT NULL
         UNION ALL SELECT "key", "previous", -"n" FROM g WHERE "set" = 2 AND "previous" IS NOT NULL
         UNION ALL SELECT "key", '', "inferred" FROM g WHERE "set" = 3) x
       GROUP BY "key", "v" HAVING sum("d") <> 0`,
      values,
    );
    await sql.rows(
      `UPDATE "FleetFactDayKept" SET "through" = $3::timestamp, "dirtySince" = NULL, "refreshedAt" = now() WHERE "fact" = $1 AND "field" = $2`,
      values,
    );
  });
}

/**
 * Folds the parts new clusters added to a fact's sums (FleetFactDayAdded, appended by the history's
 * trigger: migration 20261129203000_fleet_fact_day_added) into the sums, so that a chart reads a row
 * per day and value again however many clusters came. Exclusive, as a summing is.
 */
async function foldAddedFleetFactDays(fact: string, field: string): Promise<void> {
  await inTransaction(async (sql) => {
    await sql.rows(`SELECT pg_advisory_xact_lock(hashtextextended('FleetFactDay', 0))`);
    await sql.rows(
      `WITH moved AS (DELETE FROM "FleetFactDayAdded" WHERE "fact" = $1 AND "field" = $2 RETURNING "day", "value", "delta")
       INSERT INTO "FleetFactDay" ("fact", "field", "day", "value", "delta")
       SELECT $1, $2, "day", "value", sum("delta")::int FROM moved GROUP BY "day", "value"
       ON CONFLICT ("fact", "field", "day", "value") DO UPDATE SET "delta" = "FleetFactDay"."delta" + excluded."delta"`,
      [fact, field],
    );
    await sql.rows(`DELETE FROM "FleetFactDay" WHERE "fact" = $1 AND "field" = $2 AND "delta" = 0`, [fact, field]);
  });
}

/**
 * Sums every kept fact's days again (the daily upkeep, after the history's own); with `stale`, only
 * those that no longer hold or were summed before today, folding new clusters' parts into the others
 * (the hourly upkeep). Resolves to how many were summed again.
 */
export async function refreshKeptFleetFactDays(options: { stale?: boolean } = {}): Promise<number> {
  // Judged in SQL: never summed, `through` and `dirtySince` are '-infinity', which no Date holds.
  const kept = await getDb().$queryRaw<{ fact: string; field: string; stale: boolean }[]>`
    SELECT "fact", "field", "dirtySince" IS NOT NULL OR "through" < date_trunc('day', (now() AT TIME ZONE 'UTC') - interval '1 hour') AS "stale"
      FROM "FleetFactDayKept"`;
  let summed = 0;
  for (const k of kept) {
    if (!options.stale || k.stale) {
      await refreshFleetFactDays(k.fact, k.field);
      summed++;
    } else await foldAddedFleetFactDays(k.fact, k.field);
  }
  return summed;
}

export type HistoryKept = { created: number; dropped: number; folded: number; pruned: number };

/**
 * The history's upkeep (the daily `history-retention` job), done by the database function the
 * migration made (fleetskew_keep_history; docs/history.md): partitions for this month and the next
 * `aheadMonths`; every month that ended before `detailBefore` folded into one row a day per fact and
 * dropped whole (no row-by-row delete, however large the fleet); daily rows before `dailyBefore`
 * deleted, except the newest of each fact, which still describes the state at that cutoff.
 */
export async function keepHistory(detailBefore: Date, dailyBefore: Date, aheadMonths = 3): Promise<HistoryKept> {
  const rows = await getDb().$queryRaw<{ created: number; dropped: number; folded: bigint; pruned: bigint }[]>`
    SELECT * FROM fleetskew_keep_history(${detailBefore}::timestamp, ${dailyBefore}::timestamp, ${aheadMonths}::int)`;
  const r = rows[0]!;
  return { created: r.created, dropped: r.dropped, folded: Number(r.folded), pruned: Number(r.pruned) };
}

/**
 * Appends history rows as they are, outside any sweep (imported history, the fleet benchmark's
 * year of synthetic changes). Nothing is compared or deduplicated: the caller owns the rows.
 */
export async function appendClusterFacts(rows: (InferredFact & { clusterId: string; inferred?: boolean })[]): Promise<number> {
  if (rows.length === 0) return 0;
  const { count } = await getDb().clusterFact.createMany({
    data: rows.map((r) => ({
      clusterId: r.clusterId,
      at: r.at,
      fact: r.fact,
      key: r.key,
      value: r.value === null ? undefined : (r.value as Prisma.InputJsonValue),
      inferred: r.inferred ?? false,
    })),
  });
  return count;
}

/** Rows of history across the fleet, detail and daily. */
export async function historyRowCount(): Promise<number> {
  const [detail, daily] = await Promise.all([getDb().clusterFact.count(), getDb().clusterFactDaily.count()]);
  return detail + daily;
}

/** Bytes of history on disk, every partition and the daily rows, with their indexes. */
export async function historyBytes(): Promise<number> {
  const rows = await getDb().$queryRaw<{ bytes: bigint }[]>`
    SELECT (COALESCE(sum(pg_total_relation_size(i.inhrelid)), 0) + pg_total_relation_size('"ClusterFactDaily"'))::bigint AS bytes
      FROM pg_inherits i WHERE i.inhparent = '"ClusterFact"'::regclass`;
  return Number(rows[0]?.bytes ?? 0);
}

export type HistoryPartition = { name: string; from: string | null; rows: number };

/** The history's partitions, oldest first, with their row counts (estimates from the statistics); the default one last. */
export async function historyPartitions(): Promise<HistoryPartition[]> {
  const rows = await getDb().$queryRaw<{ name: string; bound: string; rows: number }[]>`
    SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound, GREATEST(c.reltuples, 0)::float8 AS rows
      FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = '"ClusterFact"'::regclass ORDER BY c.relname`;
  const from = (bound: string) => /FROM \('([^']+)'\)/.exec(bound)?.[1] ?? null;
  return rows
    .map((r) => ({ name: r.name, from: from(r.bound), rows: Math.round(r.rows) }))
    .sort((a, b) => (a.from === null ? 1 : b.from === null ? -1 : a.from.localeCompare(b.from)));
}
