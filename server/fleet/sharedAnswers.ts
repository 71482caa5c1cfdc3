/**
 * Answers many people ask for at once, computed once and shared for a moment. Twenty people with the
 * fleet view open ask the same few questions (the first window, the counts) every few seconds while
 * the collector changes rows underneath; a window at most FRESH_MS old is as good as a fresh one
 * (every row says when its cluster was last seen), and computing it once instead of twenty times
 * keeps every answer fast while the machine is busy sweeping. A change a person makes in this
 * process (a cluster registered or removed) drops every answer at once; changes made by other
 * processes show within FRESH_MS. Per process and bounded.
 */
const FRESH_MS = 2_000;
const MAX_ANSWERS = 200;

type Entry = { at: number; generation: number; value: Promise<unknown>; settled: boolean; refreshing: boolean };

// On globalThis: Next.js bundles pages and route handlers separately, each with its own copy of this
// module; one store (and one invalidation) must serve them all.
const state = ((
  globalThis as { __fleetskewSharedAnswers?: { entries: Map<string, Entry>; generation: number } }
).__fleetskewSharedAnswers ??= {
  entries: new Map(),
  generation: 0,
});

/**
 * How long an answer is shared: given as is for `freshMs`; then, until `keptMs`, still given at once
 * while one caller's request computes it afresh in the background (for answers that change by the
 * day and take seconds to compute, so that no one waits for them but the first).
 */
export type Sharing = { freshMs: number; keptMs?: number };

/** The answer to `key`: a shared one computed less than `freshMs` ago (or still being computed), else `compute()`'s. */
export function sharedAnswer<T>(
  key: string,
  compute: () => Promise<T>,
  now = Date.now(),
  { freshMs, keptMs = freshMs }: Sharing = { freshMs: FRESH_MS },
): Promise<T> {
  const hit = state.entries.get(key);
  if (hit && hit.generation === state.generation) {
    if (now - hit.at < freshMs) return hit.value as Promise<T>;
    if (hit.settled && now - hit.at < keptMs) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        // The kept answer stays until the new one is whole; a failed refresh leaves it for the next caller to retry.
        compute().then(
          (value) => {
            if (state.entries.get(key) === hit) remember(key, { ...fresh(Promise.resolve(value), now), settled: true });
          },
          () => (hit.refreshing = false),
        );
      }
      return hit.value as Promise<T>;
    }
  }
  const entry = fresh(compute(), now);
  remember(key, entry);
  entry.value.then(
    () => (entry.settled = true),
    // A failure is not shared beyond the callers already waiting for it.
    () => {
      if (state.entries.get(key) === entry) state.entries.delete(key);
    },
  );
  return entry.value as Promise<T>;
}

const fresh = (value: Promise<unknown>, now: number): Entry => ({
  at: now,
  generation: state.generation,
  value,
  settled: false,
  refreshing: false,
});

function remember(key: string, entry: Entry): void {
  state.entries.delete(key);
  state.entries.set(key, entry);
  // Oldest first: a Map iterates in insertion order, and a renewed key was moved to the end above.
  for (const oldest of state.entries.keys()) {
    if (state.entries.size <= MAX_ANSWERS) break;
    state.entries.delete(oldest);
  }
}

/** Something a person would see at once changed: no answer computed before it is given again. */
export function dropSharedAnswers(): void {
  state.generation++;
  state.entries.clear();
}

/** A key for a parsed query: the same question asked with its parameters in another order is the same key. */
export const answerKey = (kind: string, query: Record<string, unknown> = {}) =>
  `${kind} ${JSON.stringify(
    Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  )}`;
