import { Prisma } from "./generated/prisma/client";

// Prisma's codes for "cannot reach / lost / timed out waiting for the database".
const UNAVAILABLE = new Set(["P1001", "P1002", "P1008", "P1017", "P2024"]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "57P01", "57P03"]);

/** True when an error means the database is down or unreachable, rather than a bug. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) return UNAVAILABLE.has(error.code);
  if (error instanceof Prisma.PrismaClientInitializationError) return true;
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code ?? (error as { cause?: { code?: unknown } })?.cause?.code;
  return typeof code === "string" && SOCKET_CODES.has(code);
}

// Prisma's code for "write conflict or deadlock, retry the transaction", and PostgreSQL's own
// (deadlock_detected, serialization_failure) when they arrive unwrapped.
const CONFLICT_CODES = new Set(["P2034", "40P01", "40001"]);

/** True when a transaction lost a deadlock or a serialization conflict: running it again is the remedy. */
export function isWriteConflict(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError && CONFLICT_CODES.has(error.code)) return true;
  const e = error as { code?: unknown; cause?: { code?: unknown }; message?: unknown } | null;
  const code = e?.code ?? e?.cause?.code;
  if (typeof code === "string" && CONFLICT_CODES.has(code)) return true;
  // The driver adapter may surface PostgreSQL's error only in the message.
  return typeof e?.message === "string" && /deadlock detected|could not serialize access/.test(e.message);
}

/**
 * Runs a transaction again when PostgreSQL chose it as a deadlock's or a serialization conflict's
 * victim (its work was rolled back, so running it again is safe), up to `attempts` times with a
 * short random pause, so two writers that collided do not collide again in step.
 */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !isWriteConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 50));
    }
  }
}
