import { describe, expect, it } from "vitest";
import { useMigratedDatabase } from "../testing/database";
import { closeDb, getPool } from "./db";
import { warmFleetReads } from "./fleetWindow";

/**
 * The web process opens its pool's connections when it starts (instrumentation.ts), each having
 * planned a fleet window, and keeps them open however long they idle.
 */
const database = useMigratedDatabase();

type PoolOptions = { options: { max: number; idleTimeoutMillis: number } };
const backends = async () =>
  Number(
    (
      await getPool().query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      )
    ).rows[0]!.n,
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the web process's database connections", () => {
  it("closes an idle connection of a pool that was not warmed (the default, for every other process)", async () => {
    expect(database().url).toBeTruthy();
    await closeDb();
    (getPool() as unknown as PoolOptions).options.idleTimeoutMillis = 150;
    await getPool().query("SELECT 1");
    expect(getPool().totalCount).toBe(1);
    await sleep(500);
    expect(getPool().totalCount).toBe(0);
  });

  it("opens every connection of the pool, plans a window on each, and keeps them when idle", async () => {
    await closeDb();
    const pool = getPool();
    const { max } = (pool as unknown as PoolOptions).options;
    (pool as unknown as PoolOptions).options.idleTimeoutMillis = 150;
    expect(await warmFleetReads()).toBe(max);
    expect(pool.totalCount).toBe(max);
    expect(pool.idleCount).toBe(max);
    await sleep(500);
    expect(pool.totalCount).toBe(max);
    // The server holds them too: one of them asks, the others are counted.
    expect(await backends()).toBe(max - 1);
    // Warmed again (a second start of the hook), nothing more is opened.
    expect(await warmFleetReads()).toBe(0);
    expect(pool.totalCount).toBe(max);
  });
});
