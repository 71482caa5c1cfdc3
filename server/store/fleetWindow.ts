import type { FleetSortKey } from "../domain/fleetSort";
import type { Reach } from "../domain/grants";
import { warmConnections } from "./db";
import { adder, reachSql } from "./scope";
import { FLEET_COLUMNS, queryText, storedTime, toFleetRow, type FleetRow } from "./fleet";

/**
 * The fleet table a window at a time: filters, search, sort and keyset paging in SQL, so a page of
 * the fleet view costs one short query whatever the size of the fleet (docs/benchmarks.md has the
 * plans at 10,000 clusters).
 */
export type FleetFilter = {
  /** The part of the fleet the reader may see (their grants): every query is limited to it. */
  reach: Reach;
  search?: string;
  /** Exact names. */
  names?: string[];
  platform?: string;
  /** "4.19", or "unknown" for clusters whose version is not known. */
  minor?: string;
  skew?: string;
  mode?: string;
  readiness?: string;
  blocker?: string;
  /** Every entry must hold: `key` present, with `value` when one is given. */
  labels?: { key: string; value?: string }[];
  registryLess?: boolean;
  stale?: boolean;
  offline?: boolean;
  /** In this rollout (by number), and in this state there when given. */
  rollout?: { number: number; state?: string };
};

export type FleetSort = { key: FleetSortKey; desc: boolean };

/**
 * Each sort: the column of the fleet index ("FleetIndex", kept by triggers: migration
 * 20261129080000_fleet_index) it orders by, and the SQL type a cursor's text is read back as. Every
 * sort has an index ending in the name, so a window walks it and stops; the last-seen time is the
 * summaries' own (see `lastSeenWindow`).
 */
const SORTS: Record<FleetSortKey, { expr: string; type: string }> = {
  name: { expr: `k."name"`, type: "text" },
  // "4.19.10" → {4,19,10}: versions sort as numbers (4.9 before 4.12); no version sorts last.
  version: { expr: `k."versionKey"`, type: "int[]" },
  // Worst first, as the fleet view lists them by default.
  skew: { expr: `k."skewRank"`, type: "int" },
  oldest: { expr: `k."oldestKey"`, type: "int[]" },
  readiness: { expr: `k."readinessRank"`, type: "int" },
  // Changes at every sweep, so it is not in the fleet index: this sort walks the summaries' own index.
  lastSeen: { expr: `coalesce(s."lastSeenAt", '-infinity'::timestamp)`, type: "timestamp" },
};

/** Where a window starts: the sort value and name of the last row of the window before it. */
export type FleetCursor = { value: string | null; name: string };

/** The rows a window reads: the fleet index, each row with its cluster and newest summary. */
const WINDOW_FROM = `"FleetIndex" k JOIN "Cluster" c ON c."id" = k."clusterId" LEFT JOIN "ClusterState" s ON s."clusterId" = k."clusterId"`;

/** The search box's text as a LIKE pattern (lower-cased in SQL, as the index's search text is). */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The WHERE clause of a filter over the fleet index `k` alone; its values are appended to `values`
 * and numbered after those already there.
 */
export function where(filter: FleetFilter, values: unknown[], staleBefore: Date): string {
  const add = (v: unknown) => `$${values.push(v)}`;
  const parts: string[] = [];
  if (filter.reach.kind !== "fleet") parts.push(reachSql(filter.reach, add, "k"));
  if (filter.search) {
    // The fields are kept apart by a unit separator: a search holding one matches no single field.
    parts.push(filter.search.includes("\x1f") ? "FALSE" : `k."searchText" LIKE lower(${add(likePattern(filter.search))})`);
  }
  if (filter.names?.length) parts.push(`k."name" = ANY(${add(filter.names)}::text[])`);
  if (filter.platform) parts.push(`k."platform" = ${add(filter.platform)}`);
  if (filter.minor) parts.push(`k."minor" = ${add(filter.minor)}`);
  if (filter.skew) parts.push(`k."skewStatus" = ${add(filter.skew)}`);
  if (filter.mode) parts.push(`k."mode" = ${add(filter.mode)}`);
  if (filter.readiness) parts.push(`k."readinessStatus" = ${add(filter.readiness)}`);
  if (filter.blocker) parts.push(`k."blocker" = ${add(filter.blocker)}`);
  for (const label of filter.labels ?? [])
    parts.push(
      label.value === undefined
        ? `k."labels" ? ${add(label.key)}`
        : `k."labels" @> jsonb_build_object(${add(label.key)}::text, ${add(label.value)}::text)`,
    );
  if (filter.registryLess !== undefined) parts.push(`${filter.registryLess ? "" : "NOT "}k."registryLess"`);
  if (filter.stale !== undefined) parts.push(`${filter.stale ? "" : "NOT "}(${staleIn(add(storedTime(staleBefore)))})`);
  if (filter.offline !== undefined) parts.push(`k."offline" = ${add(filter.offline)}`);
  if (filter.rollout)
    parts.push(
      `EXISTS (SELECT 1 FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId" WHERE rc."clusterName" = k."name" AND r."number" = ${add(filter.rollout.number)}` +
        (filter.rollout.state ? ` AND rc."state" = ${add(filter.rollout.state)})` : ")"),
    );
  return parts.length ? `WHERE ${parts.join(" AND ")}` : "";
}

/**
 * Stale, as fleet.ts's `staleWhen` says, over the index `k`: `before` is a parameter. The stale are
 * few in a fleet that is swept, so they are gathered from two small index ranges (the failed
 * contacts, the summaries not seen since `before`) rather than by testing every cluster's summary;
 * a cluster never swept has no last-seen time, and is stale only when its contact failed.
 */
const staleIn = (before: string) =>
  `NOT k."offline" AND k."clusterId" IN (SELECT "clusterId" FROM "FleetIndex" WHERE "contactFailed"
     UNION ALL SELECT "clusterId" FROM "ClusterState" WHERE "lastSeenAt" < ${before}::timestamp)`;

export type FleetWindow = { rows: FleetRow[]; total: number; next: FleetCursor | null };

/** `conditions` (a WHERE clause or "") and `more`, joined by AND. */
const and = (conditions: string, more: string) =>
  conditions ? (more ? `${conditions} AND ${more}` : conditions) : more ? `WHERE ${more}` : "";

/** A window in an order the fleet index holds: the index of the sort is walked from the cursor. */
function sortedWindow(conditions: string, sort: FleetSort, cursor: FleetCursor | null, limit: number, values: unknown[]): string {
  const { expr, type } = SORTS[sort.key];
  const dir = sort.desc ? "DESC" : "ASC";
  let after = "";
  if (cursor) {
    const op = sort.desc ? "<" : ">";
    const name = `$${values.push(cursor.name)}`;
    after = sort.key === "name" ? `k."name" ${op} ${name}` : `(${expr}, k."name") ${op} ($${values.push(cursor.value)}::${type}, ${name})`;
  }
  const take = `$${values.push(limit + 1)}`;
  return `SELECT ${FLEET_COLUMNS}, (${expr})::text FROM ${WINDOW_FROM} ${and(conditions, after)} ORDER BY ${expr} ${dir}, k."name" ${dir} LIMIT ${take}`;
}

/**
 * A window by last-seen time, the clusters never swept first (as if seen at -infinity): the two
 * kinds are read apart, each from an index in the window's order (the names of the never swept, the
 * summaries' last-seen time), and merged; the cursor's value is "-infinity" in the first.
 */
function lastSeenWindow(conditions: string, desc: boolean, cursor: FleetCursor | null, limit: number, values: unknown[]): string {
  const dir = desc ? "DESC" : "ASC";
  const op = desc ? "<" : ">";
  const from = cursor ? { value: `$${values.push(cursor.value)}::timestamp`, name: `$${values.push(cursor.name)}` } : null;
  const after = (seen: string) => (from ? `(${seen}, k."name") ${op} (${from.value}, ${from.name})` : "");
  const take = `$${values.push(limit + 1)}`;
  const never = `'-infinity'::timestamp`;
  return `SELECT ${FLEET_COLUMNS}, w."seen"::text FROM (
      (SELECT k."clusterId", ${never} AS "seen", k."name" FROM "FleetIndex" k
        ${and(and(conditions, `NOT k."swept"`), after(never))} ORDER BY k."name" ${dir} LIMIT ${take})
      UNION ALL
      (SELECT k."clusterId", s."lastSeenAt", k."name" FROM "FleetIndex" k JOIN "ClusterState" s ON s."clusterId" = k."clusterId"
        ${and(conditions, after(`s."lastSeenAt"`))} ORDER BY s."lastSeenAt" ${dir}, k."name" ${dir} LIMIT ${take})
    ) w JOIN (${WINDOW_FROM}) ON k."clusterId" = w."clusterId"
    ORDER BY w."seen" ${dir}, w."name" ${dir} LIMIT ${take}`;
}

/** One window of the filtered, sorted fleet, after `cursor`, and how many clusters match in all. */
export async function fleetWindow(
  filter: FleetFilter,
  sort: FleetSort,
  cursor: FleetCursor | null,
  limit: number,
  staleBefore: Date,
  options: { count?: boolean } = {},
): Promise<FleetWindow> {
  const values: unknown[] = [storedTime(staleBefore)];
  const conditions = where(filter, values, staleBefore);
  const rows = await queryText(
    sort.key === "lastSeen"
      ? lastSeenWindow(conditions, sort.desc, cursor, limit, values)
      : sortedWindow(conditions, sort, cursor, limit, values),
    values,
  );
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  let total = page.length;
  if (options.count !== false) {
    const countValues: unknown[] = [];
    // From the narrow index alone.
    const [countRow] = await queryText(`SELECT count(*) FROM "FleetIndex" k ${where(filter, countValues, staleBefore)}`, countValues);
    total = Number(countRow?.[0] ?? 0);
  }
  return {
    rows: page.map(toFleetRow),
    total,
    next: more && last ? { value: last[last.length - 1] ?? null, name: last[1]! } : null,
  };
}

/**
 * Opens the web process's connections, each having planned a window of the fleet once, so that the
 * tables and indexes a window reads are in each connection's catalog cache before the first readers
 * come (warmConnections). Nothing is read: the window is only planned (EXPLAIN).
 */
export function warmFleetReads(): Promise<number> {
  const values: unknown[] = [storedTime(new Date())];
  const conditions = where({ reach: { kind: "fleet" } }, values, new Date());
  return warmConnections(`EXPLAIN ${sortedWindow(conditions, { key: "name", desc: false }, null, 1, values)}`, values);
}

/** Every matching row, a batch at a time, in the window's order: what an export streams. */
export async function* fleetRowsMatching(
  filter: FleetFilter,
  sort: FleetSort,
  staleBefore: Date,
  batch = 1000,
): AsyncGenerator<FleetRow[]> {
  let cursor: FleetCursor | null = null;
  do {
    const window = await fleetWindow(filter, sort, cursor, batch, staleBefore, { count: false });
    if (window.rows.length) yield window.rows;
    cursor = window.next;
  } while (cursor);
}

export type FleetFacets = {
  clusters: number;
  stale: number;
  offline: number;
  registryLess: number;
  bySkew: Record<string, number>;
  byReadiness: Record<string, number>;
  byPlatform: Record<string, number>;
  byMode: Record<string, number>;
  byMinor: Record<string, number>;
  topBlockers: { title: string; clusters: number }[];
};

/**
 * The summary cards, filter options and version chart: counts over the fleet in reach, from the
 * fleet index. One pass groups it by every dimension at once (a few hundred groups), summed here
 * per dimension; the clusters not seen lately are the only count that reads the summaries.
 */
export async function fleetFacets(staleBefore: Date, reach: Reach): Promise<FleetFacets> {
  const scoped: unknown[] = [];
  const inReach = reachSql(reach, adder(scoped), "k");
  const withStale: unknown[] = [storedTime(staleBefore)];
  const inReachAfterStale = reachSql(reach, adder(withStale), "k");
  const [groups, notSeen, blockers] = await Promise.all([
    queryText(
      `SELECT k."skewStatus", k."readinessStatus", k."platform", k."mode", k."minor", k."offline", k."registryLess", k."contactFailed", count(*)
         FROM "FleetIndex" k WHERE ${inReach} GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
      scoped,
    ),
    // Stale but still answering: contacted, yet not seen since the stale time (the failed ones are counted above).
    queryText(
      `SELECT count(*) FROM "ClusterState" s JOIN "FleetIndex" k ON k."clusterId" = s."clusterId"
        WHERE s."lastSeenAt" < $1::timestamp AND NOT k."offline" AND NOT k."contactFailed" AND ${inReachAfterStale}`,
      withStale,
    ),
    queryText(
      `SELECT k."blocker", count(*) FROM "FleetIndex" k WHERE k."blocker" IS NOT NULL AND ${inReach}
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20`,
      scoped,
    ),
  ]);
  const facets: FleetFacets = {
    clusters: 0,
    stale: Number(notSeen[0]?.[0] ?? 0),
    offline: 0,
    registryLess: 0,
    bySkew: {},
    byReadiness: {},
    byPlatform: {},
    byMode: {},
    byMinor: {},
    topBlockers: blockers.map(([title, n]) => ({ title: title!, clusters: Number(n) })),
  };
  const bump = (counts: Record<string, number>, key: string, n: number) => (counts[key] = (counts[key] ?? 0) + n);
  for (const [skew, readiness, platform, mode, minor, offline, registryLess, contactFailed, count] of groups) {
    const n = Number(count);
    facets.clusters += n;
    if (offline === "t") facets.offline += n;
    else if (contactFailed === "t") facets.stale += n;
    if (registryLess === "t") facets.registryLess += n;
    bump(facets.bySkew, skew!, n);
    bump(facets.byReadiness, readiness!, n);
    bump(facets.byPlatform, platform!, n);
    bump(facets.byMode, mode!, n);
    bump(facets.byMinor, minor!, n);
  }
  return facets;
}
