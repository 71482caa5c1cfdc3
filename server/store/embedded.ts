import { mkdir } from "node:fs/promises";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export type EmbeddedDatabase = {
  /** A postgresql:// URL on the loopback interface, for Prisma and the migrate step alike. */
  url: string;
  stop(): Promise<void>;
};

/**
 * Starts the embedded Postgres (PGlite) with its data under `dataDir/pgdata` and serves it on a
 * free loopback port, so everything above the connection is the same code as with a real server.
 * PGlite is a single session, so each client of it uses a pool of one (server/store/db.ts does).
 * The socket admits a few connections so that a pool reconnecting, or the migrate step's short-lived
 * client, is not turned away while an old connection is still being torn down.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedDatabase> {
  const pgdata = path.join(dataDir, "pgdata");
  await mkdir(pgdata, { recursive: true, mode: 0o700 });
  const db = new PGlite(pgdata);
  await db.waitReady;
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 });
  await server.start();
  const url = `postgresql://postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
    },
  };
}
