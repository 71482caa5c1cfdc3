import PgBoss from "pg-boss";
import { z } from "zod";
import { jobDatabase, type SqlExecutor } from "../store/db";
import { lastJobFinish, recordJobRun } from "../store/processes";

/**
 * Fleetskew's one job system: background work as jobs in Postgres, through pg-boss 10 (schema
 * `pgboss`, created by a migration as the database owner). Everything pg-boss-specific stays in this
 * file; the rest of the code defines jobs and enqueues them:
 *
 *   const registerItem = defineJob("registration-item", z.object({ itemId: z.string() }), handler, options);
 *   await enqueue(registerItem, { itemId }, { singletonKey, startAfter });
 *
 * A job is fetched by one process at a time (`FOR UPDATE SKIP LOCKED` in pg-boss), so any number of
 * web and collector processes share the work. While a handler runs, this module renews the job's
 * expiry every third of `leaseMs`; a process killed mid-run stops renewing, pg-boss's maintenance
 * (any working process, every MAINTENANCE_SECONDS) fails the job as expired and it is retried by whichever
 * process fetches it next (`retryLimit`), or, for a recurring job, simply run at its next time.
 * Times are the database's, so hosts whose clocks differ agree. Handlers must be safe to run twice:
 * a run that stalls past its lease may overlap its retry.
 */
export type JobOptions = {
  /**
   * `stately`: at most one job waiting and one running per singleton key (recurring work: a second
   * enqueue while one waits is dropped); `standard`: any number.
   */
  policy: "standard" | "stately";
  /** How long a run holds the job unless renewed: a killed process's job waits at most this (plus maintenance) to be retried. */
  leaseMs: number;
  /** Retries after a failure or an expiry; the attempt number is given to the handler. */
  retryLimit: number;
  /** Runs of this job at once in one process. */
  concurrency: number;
};

export type JobContext = {
  id: string;
  /** 1 for the first run, 2 for the first retry, … */
  attempt: number;
  /** This attempt's name (job id and attempt): what a handler records as holding its work. */
  holder: string;
};

export type JobType<T> = {
  name: string;
  schema: z.ZodType<T>;
  // Method syntax: a job of any payload can be listed among JobType<unknown>.
  handler(payload: T, context: JobContext): Promise<void>;
  options: JobOptions;
};

export type EnqueueOptions = {
  /** With `stately` queues: one waiting job per key. */
  singletonKey?: string;
  /** Not before this time (or this many milliseconds from now, by the database's clock). */
  startAfter?: Date | number;
  /** The job's id (a UUID). Jobs enqueued at one moment are run in id order, so a caller that wants an order gives ids that sort in it. */
  id?: string;
  /** This job's lease, when not its definition's (tests of a takeover use a short one). */
  leaseMs?: number;
  /** Enqueue inside a transaction of the caller's (server/store hands one out), so the job exists exactly when the rows it is about do. */
  db?: SqlExecutor;
};

export const MAINTENANCE_SECONDS = 15;
const emptyPayload = z.object({}).strict() as unknown as z.ZodType<Record<string, never>>;
const POLL_MS = 2_000;
const SCHEMA = "pgboss";

const definitions = new Map<string, JobType<unknown>>();

/** Declares a job: its queue name, the payload's schema (checked when it is run), what it does. */
export function defineJob<S extends z.ZodTypeAny>(
  name: string,
  schema: S,
  handler: (payload: z.infer<S>, context: JobContext) => Promise<void>,
  options: Partial<JobOptions> & Pick<JobOptions, "leaseMs">,
): JobType<z.infer<S>> {
  const job: JobType<z.infer<S>> = {
    name,
    schema: schema as z.ZodType<z.infer<S>>,
    handler,
    options: { policy: "standard", retryLimit: 2, concurrency: 1, ...options },
  };
  definitions.set(name, job as JobType<unknown>);
  return job;
}

type BossJob = {
  id: string;
  name: string;
  data: unknown;
  retryCount: number;
  expireIn: { hours?: number; minutes?: number; seconds?: number; milliseconds?: number };
};

/** The lease a job was enqueued with (pg-boss's expire_in), in milliseconds. */
const leaseOf = (job: BossJob, fallback: number) => {
  const e = job.expireIn ?? {};
  const ms = (((e.hours ?? 0) * 60 + (e.minutes ?? 0)) * 60 + (e.seconds ?? 0)) * 1000 + (e.milliseconds ?? 0);
  return ms > 0 ? ms : fallback;
};

function newBoss(supervise: boolean): PgBoss {
  const boss = new PgBoss({
    db: jobDatabase(),
    schema: SCHEMA,
    // The schema and the queues are a migration's (the runtime role may not create tables).
    migrate: false,
    supervise,
    schedule: false,
    maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
    // Finished jobs are kept an hour for inspection (`SELECT * FROM pgboss.job`), then a day in the archive.
    archiveCompletedAfterSeconds: 3_600,
    deleteAfterDays: 1,
  } as PgBoss.ConstructorOptions);
  boss.on("error", (error: Error) => console.error(`fleetskew: job system: ${error.message}`));
  return boss;
}

/**
 * The job system of one process (tests make several to play several processes). `send` only enqueues;
 * `work` also fetches and runs the jobs of the given types and does pg-boss's maintenance.
 */
export class JobSystem {
  private boss: PgBoss | undefined;
  private starting: Promise<PgBoss> | undefined;
  private readonly pumps: { stop: () => void; done: Promise<void> }[] = [];
  private readonly renewals = new Set<NodeJS.Timeout>();
  private abandoned = false;

  constructor(
    private readonly supervise = false,
    private readonly report: (what: string, error: string) => void = (what, error) => console.error(`fleetskew: ${what}: ${error}`),
  ) {}

  private started(): Promise<PgBoss> {
    this.starting ??= (async () => {
      const boss = newBoss(this.supervise);
      await boss.start();
      this.boss = boss;
      return boss;
    })();
    return this.starting;
  }

  async enqueue<T>(job: JobType<T>, payload: T, options: EnqueueOptions = {}): Promise<void> {
    const boss = await this.started();
    const startAfter = options.startAfter === undefined ? undefined : startAfterText(options.startAfter);
    // insert() sends the job as one JSON text, which a transaction of the caller's can run as well as the pool.
    await boss.insert(
      [
        {
          ...(options.id ? { id: options.id } : {}),
          name: job.name,
          data: job.schema.parse(payload) as object,
          ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
          ...(startAfter ? { startAfter } : {}),
          expireInSeconds: Math.ceil((options.leaseMs ?? job.options.leaseMs) / 1000),
          retryLimit: job.options.retryLimit,
        },
      ],
      options.db ? { db: options.db } : {},
    );
  }

  /**
   * Brings the queues' options in line with the definitions (a queue itself comes from a migration;
   * creating one needs the owner, so a missing queue is reported rather than created by the runtime role).
   */
  private async alignQueues(boss: PgBoss, jobs: JobType<unknown>[]): Promise<void> {
    for (const job of jobs) {
      const queue = {
        name: job.name,
        policy: job.options.policy,
        retryLimit: job.options.retryLimit,
        expireInSeconds: Math.ceil(job.options.leaseMs / 1000),
      };
      if (!(await boss.getQueue(job.name))) await createQueue(queue);
      else await boss.updateQueue(job.name, queue);
    }
  }

  /** Fetches and runs jobs of these types in this process until stop(). */
  async work(jobs: JobType<unknown>[]): Promise<void> {
    const boss = await this.started();
    await this.alignQueues(boss, jobs);
    for (const job of jobs) this.pumps.push(this.pump(boss, job));
  }

  /** Runs waiting jobs of one type until none is left to fetch; how many ran (tests, the benchmark). */
  async drain<T>(job: JobType<T>, concurrency = job.options.concurrency): Promise<number> {
    const boss = await this.started();
    let ran = 0;
    const slot = async () => {
      for (;;) {
        const [next] = (await boss.fetch(job.name, { batchSize: 1, includeMetadata: true })) as unknown as BossJob[];
        if (!next) return;
        await this.run(boss, job as JobType<unknown>, next);
        ran++;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, slot));
    return ran;
  }

  /** pg-boss's maintenance now: jobs whose lease ran out are failed (and retried), old ones archived. */
  async maintain(): Promise<void> {
    const boss = await this.started();
    await (boss as unknown as { maintain: () => Promise<void> }).maintain();
  }

  private pump(boss: PgBoss, job: JobType<unknown>): { stop: () => void; done: Promise<void> } {
    let running = true;
    let wake: (() => void) | undefined;
    const inFlight = new Set<Promise<void>>();
    const done = (async () => {
      while (running) {
        const room = job.options.concurrency - inFlight.size;
        let fetched: BossJob[] = [];
        if (room > 0) {
          try {
            fetched = (await boss.fetch(job.name, { batchSize: room, includeMetadata: true })) as unknown as BossJob[];
          } catch (error) {
            this.report(job.name, `fetching failed: ${(error as Error).message}`);
          }
        }
        for (const next of fetched) {
          const p: Promise<void> = this.run(boss, job, next).finally(() => {
            inFlight.delete(p);
            wake?.();
          });
          inFlight.add(p);
        }
        // Found work and have room: look again at once; otherwise wait for a slot or the next poll.
        if (fetched.length && inFlight.size < job.options.concurrency) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          timer.unref();
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await Promise.all(inFlight);
    })();
    return {
      stop: () => {
        running = false;
        wake?.();
      },
      done,
    };
  }

  private async run(boss: PgBoss, job: JobType<unknown>, fetched: BossJob): Promise<void> {
    const context: JobContext = { id: fetched.id, attempt: fetched.retryCount + 1, holder: `${fetched.id}:${fetched.retryCount + 1}` };
    const leaseMs = leaseOf(fetched, job.options.leaseMs);
    const renewal = setInterval(
      () => void renewLease(job.name, fetched.id, leaseMs).catch(() => undefined),
      Math.max(300, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    this.renewals.add(renewal);
    try {
      const payload = job.schema.safeParse(fetched.data);
      if (!payload.success) throw new Error(`its payload does not match the job's schema: ${payload.error.message}`);
      await job.handler(payload.data, context);
      clearInterval(renewal);
      await boss.complete(job.name, fetched.id);
    } catch (error) {
      clearInterval(renewal);
      const message = error instanceof Error ? error.message : String(error);
      this.report(job.name, message);
      await boss.fail(job.name, fetched.id, { message }).catch((e: Error) => this.report(job.name, e.message));
    } finally {
      this.renewals.delete(renewal);
    }
  }

  /** Stops fetching and waits for the runs in flight; nothing is left half-done. */
  async stop(): Promise<void> {
    if (this.abandoned) return;
    for (const pump of this.pumps) pump.stop();
    await Promise.all(this.pumps.map((p) => p.done));
    await this.boss?.stop({ graceful: false, close: false, wait: true });
  }

  /** As a killed process would: stops at once, renewing nothing and finishing nothing (tests). */
  abandon(): void {
    this.abandoned = true;
    for (const pump of this.pumps) pump.stop();
    for (const renewal of this.renewals) clearInterval(renewal);
    void this.boss?.stop({ graceful: false, close: false, wait: false }).catch(() => undefined);
  }
}

/**
 * Creates a queue (a partition of pgboss.job) under a lock: pg-boss's create_queue is not safe against
 * itself, and processes starting together would deadlock. One text, as pg-boss sends its own locked
 * commands, so the lock and the creation share a transaction on any connection; the values are the
 * code's own, quoted as literals.
 */
async function createQueue(queue: { name: string; policy: string; retryLimit: number; expireInSeconds: number }): Promise<void> {
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const { name, ...options } = queue;
  await jobDatabase().executeSql(
    `BEGIN;
     SELECT pg_advisory_xact_lock(hashtext('fleetskew-job-queues'));
     SELECT ${SCHEMA}.create_queue(${literal(name)}, ${literal(JSON.stringify(options))}::json);
     COMMIT;`,
  );
}

function startAfterText(at: Date | number): string {
  if (typeof at === "number") return `${Math.max(0, Math.round(at))} milliseconds`;
  return at.toISOString();
}

/**
 * Pushes a running job's expiry to `leaseMs` from now. pg-boss 10 has no renewal of its own: it fails
 * an active job once `started_on + expire_in` has passed, so the expiry is moved instead.
 */
async function renewLease(name: string, id: string, leaseMs: number): Promise<boolean> {
  const { rows } = await jobDatabase().executeSql(
    `UPDATE ${SCHEMA}.job SET expire_in = (now() - started_on) + $3 * interval '1 millisecond'
     WHERE name = $1 AND id = $2 AND state = 'active' RETURNING id`,
    [name, id, leaseMs],
  );
  return rows.length === 1;
}

// The process's job system, kept on globalThis so the start script and Next's module graph share one.
const holder = globalThis as unknown as { __fleetskewJobs?: JobSystem };

/** This process's job system (enqueue only, until startWorking). */
export function jobSystem(): JobSystem {
  holder.__fleetskewJobs ??= new JobSystem();
  return holder.__fleetskewJobs;
}

/** Makes this process one that runs jobs (and pg-boss's maintenance): every job defined so far, or these. */
export async function startWorking(jobs: JobType<unknown>[] = [...definitions.values()]): Promise<JobSystem> {
  if (holder.__fleetskewJobs) await holder.__fleetskewJobs.stop().catch(() => undefined);
  holder.__fleetskewJobs = new JobSystem(true);
  await holder.__fleetskewJobs.work(jobs);
  return holder.__fleetskewJobs;
}

export function enqueue<T>(job: JobType<T>, payload: T, options: EnqueueOptions = {}): Promise<void> {
  return jobSystem().enqueue(job, payload, options);
}

/**
 * A job done once per interval for the whole deployment. Each run first enqueues the next one,
 * `everyMs` later (a `stately` queue keeps one waiting), so the schedule lives in the database across
 * restarts and kills; while a run is in progress the next waits for it, whatever its time. Working
 * processes also enqueue one when they start and every minute, which is dropped while one waits: a
 * chain broken by a failed enqueue starts again within a minute. One asked for while a run was in
 * progress does nothing when it comes up less than half an interval after that run finished.
 */
export type RecurringJob = { name: string; everyMs: number; leaseMs: number; run: () => Promise<unknown> };

export function defineRecurringJob(recurring: RecurringJob): JobType<Record<string, never>> {
  const job: JobType<Record<string, never>> = defineJob(
    recurring.name,
    emptyPayload,
    async () => {
      await enqueue(job, {}, { startAfter: recurring.everyMs });
      // A run asked for while the last one was running (a process starting meanwhile) waited for it
      // and would run again right after it: a run that finished under half an interval ago stands.
      const last = await lastJobFinish(recurring.name);
      if (last && Date.now() - last.getTime() < recurring.everyMs / 2) return;
      let error: string | null = null;
      try {
        await recurring.run();
      } catch (e) {
        error = e instanceof Error ? e.message : String(e);
      }
      await recordJobRun(recurring.name, error);
      if (error) throw new Error(error);
    },
    // No retries: the next run is the retry.
    { policy: "stately", retryLimit: 0, leaseMs: recurring.leaseMs, concurrency: 1 },
  );
  return job;
}

/** Keeps recurring jobs' chains going from a working process (see defineRecurringJob). */
export function keepRecurring(jobs: JobType<Record<string, never>>[], report: (error: unknown) => void): { stop: () => void } {
  const look = () => Promise.all(jobs.map((job) => enqueue(job, {}))).catch(report);
  void look();
  const timer = setInterval(() => void look(), 60_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
