import { databaseMode } from "../config/env";
import { appliedMigrationCount } from "../store/health";

import type { Health } from "./contract";

export type { Health };

const withTimeout = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))]);

/**
 * Whether the console can serve. Anyone may ask (load balancers do), so the answer names no
 * address, user or error text; the database's own error goes to the server log.
 */
export async function checkHealth(): Promise<Health> {
  const database = databaseMode();
  try {
    const migrations = await withTimeout(appliedMigrationCount(), 3_000);
    return { status: "ok", database, migrations };
  } catch (error) {
    const message = (error as Error).message.split("\n").filter(Boolean).pop() ?? "unknown error";
    console.error(`fleetskew: health check: database unreachable: ${message}`);
    return { status: "unavailable", database, reason: "database unreachable; the details are in the server log" };
  }
}
