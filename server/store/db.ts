import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/prisma/client";
import { databaseMode } from "../config/env";

export type Db = PrismaClient;

// One client per process (kept on globalThis so Next's dev reloads do not open a pool per edit).
const holder = globalThis as unknown as { __fleetskewDb?: { url: string; client: PrismaClient; pool: pg.Pool } };

/**
 * The process's Prisma client for DATABASE_URL. The embedded database is one PGlite session, so
 * its pool is a single connection; a second would interleave transactions (see DESIGN.md).
 */
export function getDb(): Db {
  return connection().client;
}

/**
 * The same connections for the few reads where Prisma's row conversion costs more than the query
 * (the fleet list at 10,000 clusters); store modules only.
 */
export function getPool(): pg.Pool {
  return connection().pool;
}

function connection(): { client: PrismaClient; pool: pg.Pool } {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set: start Fleetskew with `npm start`, which provides one");
  if (holder.__fleetskewDb?.url === url) return holder.__fleetskewDb;
  const embedded = databaseMode() === "embedded";
  const pool = new pg.Pool({
    connectionString: url,
    max: embedded ? 1 : 10,
    // The embedded database's connections take turns on its one session (embeddedSocket.ts): a new
    // connection may wait for another process's transaction to end before it is answered.
    connectionTimeoutMillis: embedded ? 30_000 : 5_000,
    // Keep the embedded database's one connection open rather than reconnecting after idling.
    idleTimeoutMillis: embedded ? 0 : 30_000,
    // No JIT compilation: the console's queries over a large fleet (a rollout plan's candidates,
    // the counts) are estimated costly enough to be compiled, and compiling took longer than running
    // them (3.3 s of compilation for a 0.8 s plan query at 100,000 clusters). The embedded database
    // has no JIT.
    ...(embedded ? {} : { options: "-c jit=off" }),
  });
  // An idle connection the server dropped must not take the process down; the next query reconnects.
  pool.on("error", () => undefined);
  const client = new PrismaClient({ adapter: new PrismaPg(pool) });
  holder.__fleetskewDb = { url, client, pool };
  return holder.__fleetskewDb;
}

/** Runs SQL text with positional values, as pg-boss expects of the database it is given. */
export type SqlExecutor = { executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };

/**
 * This process's connections for the job system (pg-boss), instead of a pool of its own: with the
 * embedded database there is one connection, and pg-boss's statements queue on it with Prisma's.
 * pg-boss sends its own transactions as one multi-statement text (`BEGIN; …; COMMIT;`), which runs
 * on one connection in one call, so they cannot interleave with a Prisma transaction either.
 */
export function jobDatabase(): SqlExecutor {
  return {
    async executeSql(text, values) {
      const result = (await getPool().query(text, values as unknown[] | undefined)) as unknown as pg.QueryResult | pg.QueryResult[];
      // A multi-statement text answers one result per statement; pg-boss reads none of those.
      return { rows: Array.isArray(result) ? (result.at(-1)?.rows ?? []) : result.rows };
    },
  };
}

/**
 * Opens every connection of the pool and keeps them open, each having planned `statement` once: for
 * the web process, whose readers come in bursts. A new connection is a new Postgres backend, which
 * loads the catalog of each table it plans for; twenty people's first windows at once waited for ten
 * of those (docs/benchmarks.md, "The console at 100,000 clusters"). Kept open as a fixed-size pool
 * (as HikariCP recommends): an idle pool would close them and the next burst would wait again. Other
 * processes keep the default, so a command that forgets to close the pool still exits. Resolves to
 * the connections opened; the embedded database's one connection is left as it is.
 */
export async function warmConnections(statement: string, values: unknown[] = []): Promise<number> {
  if (databaseMode() === "embedded") return 0;
  const pool = getPool();
  const options = (pool as unknown as { options: { max: number; min: number } }).options;
  options.min = options.max;
  const clients = await Promise.all(Array.from({ length: options.max - pool.totalCount }, () => pool.connect()));
  try {
    await Promise.all(clients.map((client) => client.query(statement, values)));
  } finally {
    for (const client of clients) client.release();
  }
  return clients.length;
}

export async function closeDb(): Promise<void> {
  const current = holder.__fleetskewDb;
  holder.__fleetskewDb = undefined;
  await current?.client.$disconnect();
  await current?.pool.end().catch(() => undefined);
}
