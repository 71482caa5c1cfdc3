import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { serveEmbeddedSession } from "./embeddedSocket";

export type EmbeddedDatabase = {
  /** A postgresql:// URL for the Unix socket, for Prisma and the migrate step alike. */
  url: string;
  /** The directory (mode 0700) that holds the socket. */
  socketDir: string;
  stop(): Promise<void>;
};

/**
 * Starts the embedded Postgres (PGlite) with its data under `dataDir/pgdata` and serves it on a
 * Unix socket, so everything above the connection is the same code as with a real server. PGlite
 * checks no password, so the socket is what keeps other local users out: it lives in a fresh
 * directory of mode 0700, which only the console's own user can
 * enter, rather than on a loopback port that any local process could open.
 * PGlite is a single session: the socket lets several connections take turns on it, one
 * statement, extended-protocol sequence or transaction at a time (./embeddedSocket.ts), so the web
 * server and its background process share it without interleaving; each process still uses a pool of
 * one connection (server/store/db.ts), as a second connection of the same process would only wait.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const pgdata = path.join(dataDir, "pgdata");
  await mkdir(pgdata, { recursive: true, mode: 0o700 });
  // pg_trgm: the fleet list's search index (migration 20261129080000_fleet_index) is a trigram index.
  const db = new PGlite(pgdata, { extensions: { pg_trgm } });
  await db.waitReady;
  // mkdtemp creates the directory with mode 0700; the path stays short, as socket paths must (108 bytes).
  const socketDir = await mkdtemp(path.join(os.tmpdir(), "fleetskew-db-"));
  let server: Awaited<ReturnType<typeof serveEmbeddedSession>>;
  try {
    server = await serveEmbeddedSession(db, path.join(socketDir, ".s.PGSQL.5432"));
  } catch (error) {
    await db.close().catch(() => undefined);
    await rm(socketDir, { recursive: true, force: true });
    throw error;
  }
  const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&sslmode=disable`;
  let stopped = false;
  return {
    url,
    socketDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
      await rm(socketDir, { recursive: true, force: true });
    },
  };
}
