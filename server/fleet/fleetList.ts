import { appConfig } from "../config/current";
import { listFleetRows, type FleetRow } from "../store/fleet";
import { dropSharedAnswers } from "./sharedAnswers";

/**
 * The fleet list, kept per process for a few seconds. It is what every open fleet page polls, and
 * reading 10,000 rows costs more than a request should wait: a list older than FRESH_MS is still
 * served while a refresh reads it again behind it, and one older than MAX_AGE_MS is read afresh
 * first. A change made in this process (a cluster registered, changed, removed or imported, a sweep
 * that found something new) drops it at once; what only moves "last seen" shows within FRESH_MS, and
 * changes made by other processes within MAX_AGE_MS.
 */
const FRESH_MS = 3_000;
const MAX_AGE_MS = 15_000;

/** A cluster is stale when its last sweep failed, or none succeeded for three intervals. */
const STALE_AFTER_INTERVALS = 3;
export const staleBefore = () => new Date(Date.now() - STALE_AFTER_INTERVALS * appConfig().collector.intervalMs);

type Cached = { rows: FleetRow[]; at: number };
// On globalThis: Next.js bundles pages and route handlers separately, each with its own copy of this
// module; one cache (and one invalidation) must serve them all.
const state = ((
  globalThis as {
    __fleetskewFleetList?: {
      cached: Cached | null;
      refreshing: { promise: Promise<Cached>; generation: number } | null;
      generation: number;
    };
  }
).__fleetskewFleetList ??= { cached: null, refreshing: null, generation: 0 });

function refresh(): Promise<Cached> {
  // A read that began before the latest change would answer with what the change replaced.
  if (state.refreshing && state.refreshing.generation === state.generation) return state.refreshing.promise;
  const started = Date.now();
  const asOf = state.generation;
  const promise = listFleetRows(staleBefore())
    .then((rows) => {
      const fresh = { rows, at: started };
      // A change in the meantime made this read outdated before it finished: keep it out of the cache.
      if (asOf === state.generation) state.cached = fresh;
      return fresh;
    })
    .finally(() => {
      if (state.refreshing?.promise === promise) state.refreshing = null;
    });
  state.refreshing = { promise, generation: asOf };
  return promise;
}

async function current(): Promise<Cached> {
  const cached = state.cached;
  const age = cached ? Date.now() - cached.at : Infinity;
  if (cached && age < FRESH_MS) return cached;
  if (cached && age < MAX_AGE_MS) {
    void refresh().catch(() => undefined);
    return cached;
  }
  return refresh();
}

export async function cachedFleetRows(): Promise<FleetRow[]> {
  return (await current()).rows;
}

/**
 * Something changed that the fleet list shows. A person's change (the default) also drops the shared
 * answers of the fleet view; a sweep's does not: sweeps change rows all the time, and those answers
 * are only a moment old anyway.
 */
export function invalidateFleetList(cause: "change" | "sweep" = "change"): void {
  state.generation++;
  state.cached = null;
  if (cause === "change") dropSharedAnswers();
  for (const listener of listeners) listener(cause);
}

const listeners = new Set<(cause: "change" | "sweep") => void>();

/**
 * Hears of every change this process makes to what the fleet list shows: `npm start`'s background
 * process passes them on to the web process it serves (scripts/background.ts), whose list then shows
 * a person's change at once and a sweep's news within seconds.
 */
export function onFleetListChange(listener: (cause: "change" | "sweep") => void): void {
  listeners.add(listener);
}
