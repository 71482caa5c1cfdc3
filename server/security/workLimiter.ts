import { admitWork, nextTypicalMs, WORK_LIMITS, type WorkKind, type WorkLimit } from "../domain/workLimits";
import { UserFacingError } from "../errors";
import { databaseMode } from "../config/env";
import { processIdentity } from "../runtime/identity";
import { giveBackWorkSlot, renewWorkSlots, takeWorkSlot, type RunningWork } from "../store/workSlots";

/** Where slots are counted beyond this process: every web process on the database (server/store/workSlots.ts). */
export type SharedWork = {
  take(kind: WorkKind, person: string, admit: (running: RunningWork) => boolean): Promise<{ id: string | null; running: RunningWork }>;
  give(id: string): void;
};

/**
 * Counts the expensive requests running, per person and in total, and refuses one more past the
 * limits (server/domain/workLimits.ts) with a 429 and Retry-After, at once: a refused request costs
 * nothing but this count, so the console stays responsive while it is busy. The counts are this
 * process's first (a request this process alone would refuse never reaches the database), then, with
 * `shared`, every web process's together, so the limits hold for the deployment however many
 * replicas serve it.
 */
export class WorkLimiter {
  private readonly running = new Map<WorkKind, { total: number; perPerson: Map<string, number> }>();
  private readonly typicalMs = new Map<WorkKind, number>();

  constructor(
    private readonly limits: Readonly<Record<WorkKind, WorkLimit>> = WORK_LIMITS,
    private readonly now: () => number = () => performance.now(),
    private readonly shared: () => SharedWork | null = () => null,
  ) {}

  private refuse(kind: WorkKind, running: RunningWork): void {
    const refusal = admitWork(kind, running, this.typicalMs.get(kind) ?? null, this.limits);
    if (refusal)
      throw new UserFacingError(429, refusal.message, { "retry-after": String(refusal.retryAfter) }, { retryAfter: refusal.retryAfter });
  }

  /** Takes a slot for `person`, or throws the 429. The returned function gives it back (once). */
  async acquire(kind: WorkKind, person: string): Promise<() => void> {
    const counts = this.running.get(kind) ?? { total: 0, perPerson: new Map<string, number>() };
    this.running.set(kind, counts);
    this.refuse(kind, { person: counts.perPerson.get(person) ?? 0, total: counts.total });
    // Counted here before the database is asked, so two requests of this process never both pass.
    counts.total += 1;
    counts.perPerson.set(person, (counts.perPerson.get(person) ?? 0) + 1);
    const local = () => {
      counts.total -= 1;
      const left = (counts.perPerson.get(person) ?? 1) - 1;
      if (left > 0) counts.perPerson.set(person, left);
      else counts.perPerson.delete(person);
    };
    const shared = this.shared();
    let slot: string | null = null;
    if (shared) {
      try {
        const taken = await shared.take(kind, person, (running) => !admitWork(kind, running, null, this.limits));
        if (!taken.id) this.refuse(kind, taken.running);
        slot = taken.id;
      } catch (error) {
        local();
        throw error;
      }
    }
    const started = this.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      local();
      if (slot) shared!.give(slot);
      this.typicalMs.set(kind, nextTypicalMs(this.typicalMs.get(kind) ?? null, this.now() - started));
    };
  }

  /** What runs now in this process, for tests. */
  runningNow(kind: WorkKind, person?: string): number {
    const counts = this.running.get(kind);
    if (!counts) return 0;
    return person === undefined ? counts.total : (counts.perPerson.get(person) ?? 0);
  }
}

/** How long a slot lives without renewal: a killed replica's slots are free again after this. */
const SLOT_LEASE_MS = 60_000;

/** Slots in the database, renewed while held (every third of the lease) and given back as the work ends. */
export function databaseWork(processName = () => processIdentity().name): SharedWork {
  const held = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const renew = () => {
    timer = undefined;
    if (!held.size) return;
    renewWorkSlots([...held], SLOT_LEASE_MS)
      .catch((error) => console.error("fleetskew: renewing work slots failed:", (error as Error).message))
      .finally(schedule);
  };
  const schedule = () => {
    if (timer || !held.size) return;
    timer = setTimeout(renew, SLOT_LEASE_MS / 3);
    timer.unref?.();
  };
  // Slots given back and not yet deleted: this process's next request waits for them, so it never
  // counts its own finished work against itself.
  const giving = new Set<Promise<void>>();
  return {
    async take(kind, person, admit) {
      if (giving.size) await Promise.all(giving);
      const taken = await takeWorkSlot({ kind, person, process: processName(), leaseMs: SLOT_LEASE_MS }, admit);
      if (taken.id) {
        held.add(taken.id);
        schedule();
      }
      return taken;
    },
    give(id) {
      held.delete(id);
      // Not awaited: the answer is already on its way. A slot that cannot be deleted runs out with its lease.
      const deleting: Promise<void> = giveBackWorkSlot(id)
        .catch((error) => console.error("fleetskew: giving back a work slot failed:", (error as Error).message))
        .finally(() => giving.delete(deleting));
      giving.add(deleting);
    },
  };
}

// On globalThis: Next.js bundles route handlers separately, and the limits are the process's, not a bundle's.
const holder = globalThis as unknown as { __fleetskewWorkLimiter?: WorkLimiter };

/**
 * The web process's limiter: counted across every web process on a Postgres server; with the
 * embedded database (one web process, `npm start`) or none (unit tests), in this process alone.
 */
export function workLimiter(): WorkLimiter {
  if (!holder.__fleetskewWorkLimiter) {
    const shared = databaseWork();
    holder.__fleetskewWorkLimiter = new WorkLimiter(WORK_LIMITS, undefined, () =>
      process.env.DATABASE_URL && databaseMode() === "postgres" ? shared : null,
    );
  }
  return holder.__fleetskewWorkLimiter;
}

/** Runs `work` in a slot of `kind` for `person` (pages that do expensive work without a route); throws the 429 past the limits. */
export async function withWorkSlot<T>(kind: WorkKind, person: string, work: () => Promise<T>, limiter = workLimiter()): Promise<T> {
  const release = await limiter.acquire(kind, person);
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
