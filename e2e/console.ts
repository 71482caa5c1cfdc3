/**
 * A console of its own for the security suite: the built app started with `npm start`'s script in
 * this process's control (so its memory can be read), on a fresh Postgres database that it migrates
 * as the owner and serves as a runtime role with only the rights grantRuntimeRole gives, behind a
 * "proxy" (FLEETSKEW_TRUST_PROXY=1), so tests can speak for several client addresses.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

const root = path.resolve(__dirname, "..");
const baseUrl = process.env.FLEETSKEW_TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

export type StartedConsole = {
  url: string;
  pid: number;
  ownerUrl: string;
  runtimeUrl: string;
  runtimeRole: string;
  dataDir: string;
  adminPassword: string;
  log: () => string;
  /** Resident memory of the console process, in MiB. */
  rssMiB: () => number;
  stop: () => Promise<void>;
};

export async function adminSql(sql: string, url = baseUrl): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });

/** Runs scripts/start.ts with `env` until it says it is ready (or exits, which rejects with its output). */
export function runStart(
  env: Record<string, string>,
  ready = /console ready on /,
): Promise<{ child: ChildProcess; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/start.ts")], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", FLEETSKEW_CHECK_ANSWERS: "1", ...env, NODE_ENV: "production" },
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (ready.test(output)) {
        clearInterval(timer);
        resolve({ child, output: () => output, exited });
      }
    }, 100);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`the console exited (${code}) before it was ready:\n${output}`));
    });
  });
}

/**
 * A new database on the test server and a login role for the console to serve as: `owner` (the
 * server's own user, who migrates) and `runtime` (that role) connect to it; `drop` removes both.
 */
export async function databaseWithRuntimeRole(purpose: string) {
  const suffix = `${process.pid}_${randomBytes(3).toString("hex")}`;
  const dbName = `fleetskew_${purpose}_${suffix}`;
  const runtimeRole = `fleetskew_runtime_${suffix}`;
  await adminSql(`CREATE DATABASE "${dbName}"`);
  await adminSql(`CREATE ROLE "${runtimeRole}" LOGIN`);
  const owner = new URL(baseUrl);
  owner.pathname = `/${dbName}`;
  const runtime = new URL(owner);
  runtime.username = runtimeRole;
  return {
    owner,
    runtime,
    runtimeRole,
    async drop() {
      await adminSql(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
      await adminSql(`DROP ROLE IF EXISTS "${runtimeRole}"`).catch(() => undefined);
    },
  };
}

/** `port`: chosen by the caller when something must know the console's address first (an OpenID provider's redirect URI). */
export async function startConsole(extraEnv: Record<string, string> = {}, options: { port?: number } = {}): Promise<StartedConsole> {
  const { owner, runtime, runtimeRole, drop } = await databaseWithRuntimeRole("security");
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-security-"));
  const port = options.port ?? (await freePort());
  const adminPassword = `security admin ${randomBytes(6).toString("hex")}`;
  const started = await runStart({
    PORT: String(port),
    HOST: "127.0.0.1",
    FLEETSKEW_DATA_DIR: dataDir,
    FLEETSKEW_DEMO: "0",
    FLEETSKEW_ADMIN_PASSWORD: adminPassword,
    FLEETSKEW_TRUST_PROXY: "1",
    DATABASE_URL: runtime.toString(),
    FLEETSKEW_MIGRATION_DATABASE_URL: owner.toString(),
    ...extraEnv,
  });
  const pid = started.child.pid!;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    ownerUrl: owner.toString(),
    runtimeUrl: runtime.toString(),
    runtimeRole,
    dataDir,
    adminPassword,
    log: started.output,
    rssMiB: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024,
    async stop() {
      started.child.kill("SIGTERM");
      await Promise.race([started.exited, new Promise((r) => setTimeout(r, 10_000))]);
      started.child.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
      await drop();
    },
  };
}
