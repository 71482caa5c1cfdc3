/**
 * Expensive work a person can ask of the console (reading clusters live, exporting, parsing large
 * uploads, planning over the whole fleet): how much of each kind runs at once, per person and in
 * total, and what a refused request is told. Pure: the counting is in server/security/workLimiter.ts
 * (across web processes through server/store/workSlots.ts).
 */

export const WORK_KINDS = ["preview", "connection-test", "precheck", "export", "bulk", "rollout-plan"] as const;
export type WorkKind = (typeof WORK_KINDS)[number];

export type WorkLimit = {
  /** Requests of this kind one person may have running at once. */
  perPerson: number;
  /** Requests of this kind everyone together may have running at once, across all web processes. */
  total: number;
  /** What one request of this kind is called in a refusal: "a preview", "previews". */
  one: string;
  many: string;
};

/**
 * Sized so that one person cannot hold more than a small share of a web process, and all of them
 * together leave the event loop and the database pool free for ordinary pages: a fleet preview reads
 * up to a few hundred clusters, a connection test or a bundle precheck reads one cluster live, an export streams the whole fleet, a bulk upload parses up to 32 MiB.
 */
export const WORK_LIMITS: Readonly<Record<WorkKind, WorkLimit>> = {
  preview: { perPerson: 2, total: 6, one: "preview", many: "previews" },
  "connection-test": { perPerson: 2, total: 8, one: "connection test", many: "connection tests" },
  precheck: { perPerson: 2, total: 8, one: "bundle precheck", many: "bundle prechecks" },
  export: { perPerson: 1, total: 4, one: "export", many: "exports" },
  bulk: { perPerson: 1, total: 2, one: "bulk upload", many: "bulk uploads" },
  "rollout-plan": { perPerson: 1, total: 4, one: "rollout plan", many: "rollout plans" },
};

/** Retry-After is a guess from how long this kind of work has lately taken: at least 1 s, at most a minute. */
export function retryAfterSeconds(typicalMs: number | null): number {
  if (typicalMs === null || !Number.isFinite(typicalMs)) return 2;
  return Math.min(60, Math.max(1, Math.ceil(typicalMs / 1000)));
}

/** A moving average of durations that follows a change within a few requests. */
export const nextTypicalMs = (typicalMs: number | null, tookMs: number): number =>
  typicalMs === null ? tookMs : typicalMs * 0.7 + tookMs * 0.3;

export type Refusal = { scope: "person" | "total"; retryAfter: number; message: string };

/** The decision for one more request of `kind`, given what already runs. */
export function admitWork(
  kind: WorkKind,
  running: { person: number; total: number },
  typicalMs: number | null,
  limits: Readonly<Record<WorkKind, WorkLimit>> = WORK_LIMITS,
): Refusal | null {
  const limit = limits[kind];
  const retryAfter = retryAfterSeconds(typicalMs);
  if (running.person >= limit.perPerson) {
    const yours = limit.perPerson === 1 ? `an ${limit.one}`.replace(/^an ([^aeiou])/, "a $1") : `${limit.perPerson} ${limit.many}`;
    return {
      scope: "person",
      retryAfter,
      message: `You already have ${yours} running, the most one person may run at once; wait for it to finish and try again in about ${retryAfter} s`,
    };
  }
  if (running.total >= limit.total) {
    return {
      scope: "total",
      retryAfter,
      message: `The console is busy with ${limit.total} ${limit.many} for other people; try again in about ${retryAfter} s`,
    };
  }
  return null;
}
