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
