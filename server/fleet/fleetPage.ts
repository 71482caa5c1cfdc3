import type { Reach } from "../domain/grants";
import { compareVersionTexts } from "../domain/versions";
import { fleetFacets, fleetRowsMatching, fleetWindow, type FleetFacets } from "../store/fleetWindow";
import type { FleetRow } from "../store/fleet";
import { staleBefore } from "./fleetList";
import { encodeCursor, filterOf, sortOf, type FleetListQuery } from "./fleetQuery";

/** A fleet row as one person sees it: the API URL only for admins. */
export type ShownFleetRow = Omit<FleetRow, "apiUrl"> & { apiUrl: string | null };

/**
 * Where a cluster's API is — for a hub's cluster, the hub's proxy URL — is an admin's to see, as the
 * hub's own URLs are: everyone else gets null.
 */
export function shownRow(row: FleetRow, apiUrls: boolean): ShownFleetRow {
  return apiUrls ? row : { ...row, apiUrl: null };
}

/** GET /api/v1/clusters: one window of the filtered, sorted fleet, the count of matches, and where the next window starts. */
export type FleetPage = { clusters: ShownFleetRow[]; total: number; next: string | null };

export async function fleetPage(q: FleetListQuery, { apiUrls = false, reach }: { apiUrls?: boolean; reach: Reach }): Promise<FleetPage> {
  const window = await fleetWindow(filterOf(q, reach), sortOf(q), q.after ?? null, q.limit, staleBefore());
  return {
    clusters: window.rows.map((r) => shownRow(r, apiUrls)),
    total: window.total,
    next: window.next ? encodeCursor(window.next) : null,
  };
}

export type { FleetFacets };

/** The fleet's counts by status, platform, enforcement mode and minor version, from aggregates, within reach. */
export async function currentFleetFacets(reach: Reach): Promise<FleetFacets> {
  return fleetFacets(staleBefore(), reach);
}

export const versionsOf = (byMinor: Record<string, number>) =>
  Object.entries(byMinor)
    .map(([minor, count]) => ({ minor, count }))
    .sort((a, b) => compareVersionTexts(a.minor, b.minor));

const CSV_COLUMNS: [string, (r: FleetRow) => string | null][] = [
  ["name", (r) => r.name],
  ["displayName", (r) => r.displayName],
  ["version", (r) => r.version],
  ["platform", (r) => r.platform],
  ["skewStatus", (r) => r.skewStatus],
  ["skewSummary", (r) => r.skewSummary],
  ["enforcementMode", (r) => r.enforcementMode],
  ["oldestBootImage", (r) => r.oldestBootImage],
  ["readinessTarget", (r) => r.readinessTarget],
  ["readinessStatus", (r) => r.readinessStatus],
  ["readinessBlocker", (r) => r.readinessBlocker],
  ["lastSeenAt", (r) => r.lastSeenAt],
  ["stale", (r) => String(r.stale)],
  ["offline", (r) => String(r.offline)],
  [
    "labels",
    (r) =>
      Object.entries(r.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
  ],
];

/** A spreadsheet cell: quoted when needed, and never read as a formula (=, +, -, @ at the start). */
function cell(value: string | null): string {
  if (value === null) return "";
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** Every cluster the query matches, as CSV, read from the database a batch at a time while it is sent. */
export function fleetCsv(q: FleetListQuery, reach: Reach): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const batches = fleetRowsMatching(filterOf(q, reach), sortOf(q), staleBefore());
  let headerSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(`${CSV_COLUMNS.map(([name]) => name).join(",")}\r\n`));
        return;
      }
      const next = await batches.next();
      if (next.done) return controller.close();
      controller.enqueue(encoder.encode(next.value.map((r) => `${CSV_COLUMNS.map(([, get]) => cell(get(r))).join(",")}\r\n`).join("")));
    },
    async cancel() {
      await batches.return(undefined);
    },
  });
}
