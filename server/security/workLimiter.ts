import { admitWork, nextTypicalMs, WORK_LIMITS, type WorkKind, type WorkLimit } from "../domain/workLimits";
import { UserFacingError } from "../errors";

/**
 * Counts the expensive requests running in this web process, per person and in total, and refuses
 * one more past the limits (server/domain/workLimits.ts) with a 429 and Retry-After, at once: a
 * refused request costs nothing but this count, so the console stays responsive while it is busy.
 * The counts are in memory, so the limits hold per web process (several processes each allow them).
 */
export class WorkLimiter {
  private readonly running = new Map<WorkKind, { total: number; perPerson: Map<string, number> }>();
  private readonly typicalMs = new Map<WorkKind, number>();

  constructor(
    private readonly limits: Readonly<Record<WorkKind, WorkLimit>> = WORK_LIMITS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes a slot for `person`, or throws the 429. The returned function gives it back (once). */
  acquire(kind: WorkKind, person: string): () => void {
    const counts = this.running.get(kind) ?? { total: 0, perPerson: new Map<string, number>() };
    this.running.set(kind, counts);
    const refusal = admitWork(
      kind,
      { person: counts.perPerson.get(person) ?? 0, total: counts.total },
      this.typicalMs.get(kind) ?? null,
      this.limits,
    );
    if (refusal)
      throw new UserFacingError(429, refusal.message, { "retry-after": String(refusal.retryAfter) }, { retryAfter: refusal.retryAfter });
    counts.total += 1;
    counts.perPerson.set(person, (counts.perPerson.get(person) ?? 0) + 1);
    const started = this.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      counts.total -= 1;
      const left = (counts.perPerson.get(person) ?? 1) - 1;
      if (left > 0) counts.perPerson.set(person, left);
      else counts.perPerson.delete(person);
      this.typicalMs.set(kind, nextTypicalMs(this.typicalMs.get(kind) ?? null, this.now() - started));
    };
  }

  /** What runs now, for tests and /metrics-like reading. */
  runningNow(kind: WorkKind, person?: string): number {
    const counts = this.running.get(kind);
    if (!counts) return 0;
    return person === undefined ? counts.total : (counts.perPerson.get(person) ?? 0);
  }
}

// On globalThis: Next.js bundles route handlers separately, and the limits are the process's, not a bundle's.
const holder = globalThis as unknown as { __fleetskewWorkLimiter?: WorkLimiter };

/** The web process's limiter. */
export function workLimiter(): WorkLimiter {
  holder.__fleetskewWorkLimiter ??= new WorkLimiter();
  return holder.__fleetskewWorkLimiter;
}

/** Runs `work` in a slot of `kind` for `person` (pages that do expensive work without a route); throws the 429 past the limits. */
export async function withWorkSlot<T>(kind: WorkKind, person: string, work: () => Promise<T>): Promise<T> {
  const release = workLimiter().acquire(kind, person);
  try {
    return await work();
  } finally {
    release();
  }
}

/**
 * The answer, holding the slot until its body has been sent when it is a stream the handler made
 * (a CSV read from the database as it goes); otherwise the slot is given back now.
 */
export function releaseWhenSent(response: Response, release: () => void, streamed: boolean): Response {
  if (!streamed || !response.body) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          release();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        release();
        controller.error(error);
      }
    },
    async cancel(reason) {
      release();
      await reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
