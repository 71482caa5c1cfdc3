import { claimJob, finishJob, renewJob } from "../store/processes";

/**
 * Background work done once per interval for the whole deployment, whichever process does it.
 *
 * Each job is a row in `BackgroundJob`; a process runs it only after claiming it: due, and nobody
 * holding an unexpired lease. While it runs, the lease is renewed every third of its length; when it
 * ends, the lease is released and the next run scheduled `everyMs` later. A process killed mid-run
 * stops renewing, its lease expires, and another process runs the job at its next look.
 *
 * Why a lease table rather than Postgres advisory locks: an advisory lock lives as long as one
 * database session, so it needs a connection held aside for it, and breaks behind a connection
 * pooler in transaction mode (PgBouncer); it also cannot say "done at 10:05, next due at 10:10", so
 * every replica would run a daily job once a day. A row keeps the schedule, survives restarts, and
 * shows who holds what (`SELECT * FROM "BackgroundJob"`).
 */
export type Job = {
  name: string;
  /** How often the work is done, across all processes. */
  everyMs: number;
  /** How long a lease lasts unless renewed; a killed holder's job waits at most this long. */
  leaseMs: number;
  run: () => Promise<unknown>;
};

export type JobRun = { ran: boolean; error?: string; leaseLost?: boolean };

/** Runs `job` if this process can claim it now; nothing when another process has it or it is not due. */
export async function runJobIfDue(job: Job, owner: string): Promise<JobRun> {
  const claim = await claimJob(job.name, owner, job.leaseMs);
  if (!claim) return { ran: false };
  let lost = false;
  const renew = setInterval(
    () =>
      void renewJob(job.name, owner, job.leaseMs)
        .then((held) => (lost ||= !held))
        .catch(() => undefined),
    Math.max(1_000, Math.floor(job.leaseMs / 3)),
  );
  renew.unref();
  let error: string | null = null;
  try {
    await job.run();
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    clearInterval(renew);
  }
  const released = await finishJob(job.name, owner, job.everyMs, error);
  return { ran: true, ...(error ? { error } : {}), ...(lost || !released ? { leaseLost: true } : {}) };
}

/** Looks for due jobs regularly; each job is looked at no more than once at a time in this process. */
export function startJobs(jobs: Job[], owner: string, report: (job: Job, error: string) => void): { stop: () => void } {
  const timers = jobs.map((job) => {
    let busy = false;
    const look = () => {
      if (busy) return;
      busy = true;
      runJobIfDue(job, owner)
        .then((r) => {
          if (r.error) report(job, r.error);
          if (r.leaseLost) report(job, "its lease expired while it ran; another process may have run it as well");
        })
        .catch((e: unknown) => report(job, e instanceof Error ? e.message : String(e)))
        .finally(() => (busy = false));
    };
    look();
    // Looking more often than the job is due only costs one small UPDATE; it bounds how late a job
    // runs after its holder died (lease + this).
    const timer = setInterval(look, Math.min(job.everyMs, 15_000));
    timer.unref();
    return timer;
  });
  return { stop: () => timers.forEach(clearInterval) };
}
