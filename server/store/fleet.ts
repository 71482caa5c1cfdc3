import type pg from "pg";
import type { SkewStatus } from "../domain/clusterSkew";
import type { CheckStatus } from "../domain/readiness";
import { getDb, getPool } from "./db";
import type { ClusterSummary, ContactStatus } from "./clusters";
import type { ClusterSnapshot } from "../domain/snapshot";
import { decodeSnapshot } from "./snapshotCodec";
import { FLEET_WIDE, type Reach } from "../domain/grants";
import { adder, reachSql } from "./scope";

/**
 * The fleet table: every cluster with its newest summary, in one query (no snapshots), because it
 * is what admins open every morning and it must stay fast at 10,000 clusters. The rows are read as
 * text: converting 10,000 rows of typed columns (dates, JSON) costs several times the query.
 */
export type FleetRow = ClusterSummary & {
  offline: boolean;
  version: string | null;
  skewStatus: SkewStatus;
  skewSummary: string | null;
  enforcementMode: string | null;
  oldestBootImage: string | null;
  readinessTarget: string | null;
  readinessStatus: CheckStatus;
  readinessBlocker: string | null;
  /** When the collector last saw the cluster's state (the capture time for offline clusters). */
  lastSeenAt: string | null;
  /** Not offline, and its last sweep failed or was longer ago than `staleBefore` allows. */
  stale: boolean;
  /** Installed without a registry: its newest snapshot has an InternalReleaseImage (docs/openshift.md §24). */
  registryLess: boolean;
  /** From an ACM hub: "available", "lease-expired" (not contacted) or "removed" (deleted on the hub, history kept); null otherwise. */
  hubState: string | null;
};

/**
 * Not contacted by design: imported from dumps, or a hub cluster whose lease expired or that the hub
 * deleted. Such clusters are counted and filtered as offline, never as stale.
 */
export const OFFLINE = `(c."offline" OR coalesce(c."hubState", 'available') <> 'available')`;

/** Not offline, and its last contact failed or the collector has not seen it since `before` (a parameter). */
export const staleWhen = (before: string) =>
  `NOT ${OFFLINE} AND (c."lastContactStatus"::text NOT IN ('ok', 'unknown') OR coalesce(s."lastSeenAt" < ${before}::timestamp, false))`;

// Every value arrives as the text Postgres sends; only what is not text is converted below.
const asText = { getTypeParser: () => (value: string) => value };
/** "2026-11-23 00:51:00.12" (UTC, as stored; Postgres drops trailing zeros) → "2026-11-23T00:51:00.120Z". */
function iso(timestamp: string | null): string | null {
  if (timestamp === null) return null;
  const [date, time] = timestamp.split(" ");
  const [seconds, fraction = ""] = time!.split(".");
  return `${date}T${seconds}.${fraction.padEnd(3, "0").slice(0, 3)}Z`;
}

/** The columns of a fleet row, in the order `toFleetRow` reads them; `$1` is the stale-before time. */
export const FLEET_COLUMNS = `c."id", c."name", c."displayName", c."labels", c."platform", c."apiUrl", c."offline",
       c."lastContactAt", c."lastContactStatus", c."lastContactError",
       s."version", coalesce(s."skewStatus", 'unknown'), s."skewSummary", s."enforcementMode", s."oldestBootImage",
       s."readinessTarget", coalesce(s."readinessStatus", 'unknown'), s."readinessBlocker", s."lastSeenAt",
       ${staleWhen("$1")}, coalesce(s."registryLess", false), c."hubState"`;

/** The rows a fleet query reads: every cluster, with its newest summary when it has one. */
export const FLEET_FROM = `"Cluster" c LEFT JOIN "ClusterState" s ON s."clusterId" = c."id"`;

/** Stored timestamps are UTC without a zone: compare with one written the same way. */
export const storedTime = (at: Date) => at.toISOString().replace("T", " ").replace("Z", "");

/** One object literal per row (one shape for V8), in the order of FLEET_COLUMNS. */
export function toFleetRow(r: (string | null)[]): FleetRow {
  return {
    id: r[0]!,
    name: r[1]!,
    displayName: r[2]!,
    labels: JSON.parse(r[3] ?? "{}") as Record<string, string>,
    platform: r[4] ?? null,
    apiUrl: r[5]!,
    offline: r[6] === "t",
    lastContactAt: iso(r[7] ?? null),
    lastContactStatus: r[8] as ContactStatus,
    lastContactError: r[9] ?? null,
    version: r[10] ?? null,
    // Written by the collector from these types' values only.
    skewStatus: r[11] as SkewStatus,
    skewSummary: r[12] ?? null,
    enforcementMode: r[13] ?? null,
    oldestBootImage: r[14] ?? null,
    readinessTarget: r[15] ?? null,
    readinessStatus: r[16] as CheckStatus,
    readinessBlocker: r[17] ?? null,
    lastSeenAt: iso(r[18] ?? null),
    stale: r[19] === "t",
    registryLess: r[20] === "t",
    hubState: r[21] ?? null,
  };
}

/** Runs a query whose every value arrives as text, one array per row. */
export async function queryText(text: string, values: unknown[]): Promise<(string | null)[][]> {
  const result = await getPool().query<(string | null)[]>({ rowMode: "array", types: asText, text, values } as pg.QueryConfig);
  return result.rows;
}

/** Every cluster (or the one named) in reach with its summary, ordered by name. */
async function queryFleetRows(staleBefore: Date, name: string | null, reach: Reach): Promise<FleetRow[]> {
  const values: unknown[] = [storedTime(staleBefore), name];
  const inReach = reachSql(reach, adder(values));
  const rows = await queryText(
    `SELECT ${FLEET_COLUMNS} FROM ${FLEET_FROM} WHERE ($2::text IS NULL OR c."name" = $2) AND ${inReach} ORDER BY c."name"`,
    values,
  );
  return rows.map(toFleetRow);
}

/** The whole fleet: for background work and admins' pages (readers' lists are fleetWindow.ts's, within reach). */
export async function listFleetRows(staleBefore: Date): Promise<FleetRow[]> {
  // Fleet-wide on purpose: the per-process fleet cache (fleetList.ts) feeds background work and admin pages.
  return queryFleetRows(staleBefore, null, FLEET_WIDE);
}

/** The clusters in reach with their summaries, in name order (the fleet readiness roll-up of a reader). */
export async function listFleetRowsInReach(staleBefore: Date, reach: Reach): Promise<FleetRow[]> {
  return queryFleetRows(staleBefore, null, reach);
}

/**
 * The cluster named, when it exists and is in reach: every per-cluster read goes through here or
 * `clusterInReach`, so that a cluster outside a reader's reach is answered exactly like one that
 * does not exist.
 */
export async function findFleetRow(name: string, staleBefore: Date, reach: Reach): Promise<FleetRow | null> {
  return (await queryFleetRows(staleBefore, name, reach))[0] ?? null;
}

/** Whether a cluster of this name exists and is in reach (the check of paths that read no summary). */
export async function clusterInReach(name: string, reach: Reach): Promise<boolean> {
  const values: unknown[] = [name];
  const rows = await queryText(`SELECT 1 FROM "Cluster" c WHERE c."name" = $1 AND ${reachSql(reach, adder(values))}`, values);
  return rows.length > 0;
}

/** Which of these names are clusters in reach (for answers that name clusters read from elsewhere, e.g. Alertmanager). */
export async function clusterNamesInReach(names: readonly string[], reach: Reach): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const values: unknown[] = [[...new Set(names)]];
  const rows = await queryText(
    `SELECT c."name" FROM "Cluster" c WHERE c."name" = ANY($1::text[]) AND ${reachSql(reach, adder(values))}`,
    values,
  );
  return new Set(rows.map((r) => r[0]!));
}

/** `snapshot` is null when the stored one does not decode (snapshotCodec.ts). */
export type StoredSnapshot = { id: string; name: string; offline: boolean; snapshot: ClusterSnapshot | null; lastSeenAt: string };

/**
 * Newest snapshots of many clusters, a page at a time in name order (snapshots are large: callers
 * that scan the fleet go page by page). `concerning` keeps clusters whose skew is blocked or at
 * risk, or whose enforcement is Manual: the ones an acknowledgement can be about.
 */
export async function listSnapshots(options: { after?: string; limit?: number; concerning?: boolean } = {}): Promise<StoredSnapshot[]> {
  const rows = await getDb().clusterState.findMany({
    where: {
      cluster: { name: { gt: options.after ?? "" } },
      ...(options.concerning ? { OR: [{ skewStatus: { in: ["blocked", "at-risk"] } }, { enforcementMode: "Manual" }] } : {}),
    },
    orderBy: { cluster: { name: "asc" } },
    take: Math.min(options.limit ?? 200, 1000),
    select: { snapshot: true, lastSeenAt: true, cluster: { select: { id: true, name: true, offline: true } } },
  });
  return rows.map((r) => ({ ...r.cluster, snapshot: decodeSnapshot(r.snapshot, r.cluster.name), lastSeenAt: r.lastSeenAt.toISOString() }));
}
