import type { FleetSortKey } from "../domain/fleetSort";
import type { Reach } from "../domain/grants";
import { adder, reachSql } from "./scope";
import { FLEET_COLUMNS, FLEET_FROM, OFFLINE, queryText, staleWhen, storedTime, toFleetRow, type FleetRow } from "./fleet";

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

/** "4.19.10" → {4,19,10}: versions sort as numbers (4.9 before 4.12); no version sorts last. */
const versionKey = (column: string) =>
  `coalesce(string_to_array(substring(${column} from '^[0-9]{1,6}\\.[0-9]{1,6}(?:\\.[0-9]{1,6})?'), '.')::int[], '{999999}')`;

/** Each sort: the expression it orders by and the SQL type a cursor's text is read back as. */
const SORTS: Record<FleetSortKey, { expr: string; type: string }> = {
  name: { expr: `c."name"`, type: "text" },
  version: { expr: versionKey(`s."version"`), type: "int[]" },
  // Worst first, as the fleet view lists them by default.
  skew: { expr: `array_position(ARRAY['blocked','at-risk','opted-out','unknown','ok'], coalesce(s."skewStatus", 'unknown'))`, type: "int" },
  oldest: { expr: versionKey(`s."oldestBootImage"`), type: "int[]" },
  readiness: { expr: `array_position(ARRAY['fail','warn','unknown','pass'], coalesce(s."readinessStatus", 'unknown'))`, type: "int" },
  lastSeen: { expr: `coalesce(s."lastSeenAt", '-infinity'::timestamp)`, type: "timestamp" },
};

/** Where a window starts: the sort value and name of the last row of the window before it. */
export type FleetCursor = { value: string | null; name: string };

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The WHERE clause of a filter; its values are appended to `values` and numbered after those already there. */
export function where(filter: FleetFilter, values: unknown[], staleBefore: Date): string {
  const add = (v: unknown) => `$${values.push(v)}`;
  const parts: string[] = [];
  if (filter.reach.kind !== "fleet") parts.push(reachSql(filter.reach, add));
  if (filter.search) {
    const p = add(likePattern(filter.search));
    parts.push(
      `(c."name" ILIKE ${p} OR c."displayName" ILIKE ${p} OR coalesce(s."version", '') ILIKE ${p} OR c."labels"::text ILIKE ${p})`,
    );
  }
  if (filter.names?.length) parts.push(`c."name" = ANY(${add(filter.names)}::text[])`);
  if (filter.platform) parts.push(`coalesce(c."platform", 'unknown') = ${add(filter.platform)}`);
  if (filter.minor) parts.push(`coalesce(substring(s."version" from '^[0-9]+\\.[0-9]+'), 'unknown') = ${add(filter.minor)}`);
  if (filter.skew) parts.push(`coalesce(s."skewStatus", 'unknown') = ${add(filter.skew)}`);
  if (filter.mode) parts.push(`coalesce(s."enforcementMode", 'unknown') = ${add(filter.mode)}`);
  if (filter.readiness) parts.push(`coalesce(s."readinessStatus", 'unknown') = ${add(filter.readiness)}`);
  if (filter.blocker) parts.push(`s."readinessBlocker" = ${add(filter.blocker)}`);
  for (const label of filter.labels ?? [])
    parts.push(
      label.value === undefined
        ? `c."labels" ? ${add(label.key)}`
        : `c."labels" @> jsonb_build_object(${add(label.key)}::text, ${add(label.value)}::text)`,
    );
  if (filter.registryLess !== undefined) parts.push(`${filter.registryLess ? "" : "NOT "}coalesce(s."registryLess", false)`);
  if (filter.stale !== undefined) parts.push(`${filter.stale ? "" : "NOT "}(${staleWhen(add(storedTime(staleBefore)))})`);
  if (filter.offline !== undefined) parts.push(`${OFFLINE} = ${add(filter.offline)}`);
  if (filter.rollout)
    parts.push(
      `EXISTS (SELECT 1 FROM "RolloutCluster" rc JOIN "Rollout" r ON r."id" = rc."rolloutId" WHERE rc."clusterName" = c."name" AND r."number" = ${add(filter.rollout.number)}` +
        (filter.rollout.state ? ` AND rc."state" = ${add(filter.rollout.state)})` : ")"),
    );
  return parts.length ? `WHERE ${parts.join(" AND ")}` : "";
}

export type FleetWindow = { rows: FleetRow[]; total: number; next: FleetCursor | null };

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
  const { expr, type } = SORTS[sort.key];
  const dir = sort.desc ? "DESC" : "ASC";
  let after = "";
  if (cursor) {
    const op = sort.desc ? "<" : ">";
    const name = `$${values.push(cursor.name)}`;
    after = sort.key === "name" ? `c."name" ${op} ${name}` : `(${expr}, c."name") ${op} ($${values.push(cursor.value)}::${type}, ${name})`;
  }
  const clause = conditions ? (after ? `${conditions} AND ${after}` : conditions) : after ? `WHERE ${after}` : "";
  const take = `$${values.push(limit + 1)}`;
  const rows = await queryText(
    `SELECT ${FLEET_COLUMNS}, (${expr})::text FROM ${FLEET_FROM} ${clause} ORDER BY ${expr} ${dir}, c."name" ${dir} LIMIT ${take}`,
    values,
  );
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  let total = page.length;
  if (options.count !== false) {
    const countValues: unknown[] = [];
    const [countRow] = await queryText(`SELECT count(*) FROM ${FLEET_FROM} ${where(filter, countValues, staleBefore)}`, countValues);
    total = Number(countRow?.[0] ?? 0);
  }
  return {
    rows: page.map(toFleetRow),
    total,
    next: more && last ? { value: last[last.length - 1] ?? null, name: last[1]! } : null,
  };
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

/** The summary cards, filter options and version chart: counts over the fleet in reach, from aggregates. */
export async function fleetFacets(staleBefore: Date, reach: Reach): Promise<FleetFacets> {
  const stale = storedTime(staleBefore);
  // Each query numbers its own placeholders: the reach's values follow the stale time in the second.
  const scoped: unknown[] = [];
  const inReach = reachSql(reach, adder(scoped));
  const withStale: unknown[] = [stale];
  const inReachAfterStale = reachSql(reach, adder(withStale));
  const [groups, totals, blockers] = await Promise.all([
    // One pass over the fleet grouped five ways (grouping sets): a row per cluster and dimension, as
    // a VALUES list joined to each cluster gave, took half as long again at 100,000 clusters.
    queryText(
      `SELECT CASE WHEN GROUPING(f.skew) = 0 THEN 'skew' WHEN GROUPING(f.readiness) = 0 THEN 'readiness'
                   WHEN GROUPING(f.platform) = 0 THEN 'platform' WHEN GROUPING(f.mode) = 0 THEN 'mode' ELSE 'minor' END,
              coalesce(f.skew, f.readiness, f.platform, f.mode, f.minor), count(*)
         FROM (SELECT coalesce(s."skewStatus", 'unknown') AS skew, coalesce(s."readinessStatus", 'unknown') AS readiness,
                      coalesce(c."platform", 'unknown') AS platform, coalesce(s."enforcementMode", 'unknown') AS mode,
                      coalesce(substring(s."version" from '^[0-9]+\\.[0-9]+'), 'unknown') AS minor
                 FROM ${FLEET_FROM} WHERE ${inReach}) f
        GROUP BY GROUPING SETS ((f.skew), (f.readiness), (f.platform), (f.mode), (f.minor))`,
      scoped,
    ),
    queryText(
      `SELECT count(*), count(*) FILTER (WHERE ${staleWhen("$1")}), count(*) FILTER (WHERE ${OFFLINE}),
              count(*) FILTER (WHERE s."registryLess")
         FROM ${FLEET_FROM} WHERE ${inReachAfterStale}`,
      withStale,
    ),
    queryText(
      `SELECT s."readinessBlocker", count(*) FROM ${FLEET_FROM} WHERE s."readinessBlocker" IS NOT NULL AND ${inReach}
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20`,
      scoped,
    ),
  ]);
  const by: Record<string, Record<string, number>> = { skew: {}, readiness: {}, platform: {}, mode: {}, minor: {} };
  for (const [dim, value, n] of groups) by[dim!]![value!] = Number(n);
  const [total, staleCount, offline, registryLess] = (totals[0] ?? []).map(Number);
  return {
    clusters: total ?? 0,
    stale: staleCount ?? 0,
    offline: offline ?? 0,
    registryLess: registryLess ?? 0,
    bySkew: by.skew!,
    byReadiness: by.readiness!,
    byPlatform: by.platform!,
    byMode: by.mode!,
    byMinor: by.minor!,
    topBlockers: blockers.map(([title, n]) => ({ title: title!, clusters: Number(n) })),
  };
}
