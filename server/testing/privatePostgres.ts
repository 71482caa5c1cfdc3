import { execFile } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * A Postgres server of a test's own, for a test that must restart one (the shared server stays up
 * for every other test): initdb into a fresh directory on a free port, run as the `postgres` user
 * (initdb refuses root), started and restarted with pg_ctl, removed afterwards.
 */
const BIN = "/usr/lib/postgresql/15/bin";
const run = promisify(execFile);

export type PrivatePostgres = {
  url: string;
  /** `pg_ctl restart -m immediate`: every backend killed at once, crash recovery on start, as after a node failure. */
  restartImmediately(): Promise<void>;
  remove(): Promise<void>;
};

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const asPostgres = (command: string, args: string[]) => run("runuser", ["-u", "postgres", "--", path.join(BIN, command), ...args]);

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), "fleetskew-pg-"));
  const { stdout } = await run("id", ["-u", "postgres"]);
  const { stdout: gid } = await run("id", ["-g", "postgres"]);
  chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  const data = path.join(dir, "data");
  await asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const options = ["-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, "-l", path.join(dir, "log"), "-w"];
  await asPostgres("pg_ctl", ["-D", data, ...options, "start"]);
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    restartImmediately: async () => {
      await asPostgres("pg_ctl", ["-D", data, ...options, "-m", "immediate", "restart"]);
    },
    remove: async () => {
      await asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
