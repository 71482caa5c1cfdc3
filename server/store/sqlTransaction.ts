import { getPool } from "./db";
import type { Prisma } from "./generated/prisma/client";

/**
 * SQL with positional values, inside one transaction: a pg connection of the process's pool, or a
 * Prisma transaction. A sweep's write is a handful of statements with large JSON values, sent as text
 * straight through pg: the typed client's interpretation of each call and its walk over every key of
 * a JSON value were about a third of a first sweep's CPU (docs/benchmarks.md, "A first sweep's CPU").
 */
export type Sql = { rows<R>(text: string, values?: unknown[]): Promise<R[]> };

/** Runs `work` in one transaction on one of the pool's connections: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await getPool().connect();
  const sql: Sql = { rows: async <R>(text: string, values?: unknown[]) => (await client.query(text, values)).rows as R[] };
  try {
    await client.query("BEGIN");
    const result = await work(sql);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    // A connection whose rollback failed is broken: the pool drops it instead of lending it again.
    const broken = await client.query("ROLLBACK").then(
      () => undefined,
      (rollback: Error) => rollback,
    );
    client.release(broken);
    throw error;
  }
}

/** The same statements inside a Prisma transaction (a caller that also writes through the typed client). */
export const prismaSql = (tx: Prisma.TransactionClient): Sql => ({
  rows: <R>(text: string, values: unknown[] = []) => tx.$queryRawUnsafe<R[]>(text, ...values),
});

/** A timestamp as UTC text for a timestamp(3) column, as Prisma stores DateTime. */
export const utc = (d: Date) => d.toISOString().replace("Z", "");
