import pg from "pg";
import { ConfigError } from "../config/env";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../store/embedded";

/** The URL with any password replaced, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparseable URL)";
  }
}

/** Checks that the configured Postgres answers; a ConfigError says what to fix when it does not. */
export async function checkDatabaseReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const why = e.code === "ECONNREFUSED" ? "connection refused; is Postgres running?" : e.message.split("\n")[0];
    throw new ConfigError(`cannot reach the database at ${redactUrl(url)}: ${why}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export type OpenedDatabase = { url: string; mode: "postgres" | "embedded"; embedded?: EmbeddedDatabase };

/** DATABASE_URL when configured (and reachable), else the embedded database under dataDir. */
export async function openDatabase(config: { databaseUrl: string | undefined; dataDir: string }): Promise<OpenedDatabase> {
  if (config.databaseUrl) {
    await checkDatabaseReachable(config.databaseUrl);
    return { url: config.databaseUrl, mode: "postgres" };
  }
  try {
    const embedded = await startEmbeddedDatabase(config.dataDir);
    return { url: embedded.url, mode: "embedded", embedded };
  } catch (error) {
    throw new ConfigError(`cannot open the embedded database in ${config.dataDir}: ${(error as Error).message}`);
  }
}
