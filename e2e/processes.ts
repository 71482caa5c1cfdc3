/**
 * Several Fleetskew processes on one database, for e2e/processes.spec.ts: web processes started with
 * `npm start`'s script and collector workers with `npm run collector`'s, each a real child process
 * (tsx), all on one fresh Postgres database migrated by its owner and served as a runtime role.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { databaseWithRuntimeRole, freePort, runStart } from "./console";

const root = path.resolve(__dirname, "..");

export type Proc = {
  name: string;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  /** The process's name among the deployment's (lease owner, metrics label), from its log (collectors print it). */
  processName: () => string | undefined;
};

export type Deployment = {
  ownerUrl: string;
  runtimeUrl: string;
  adminPassword: string;
  env: Record<string, string>;
  startWeb: (name: string) => Promise<Proc & { url: string }>;
  startCollector: (name: string) => Promise<Proc>;
  stop: () => Promise<void>;
};

export async function createDeployment(env: Record<string, string>): Promise<Deployment> {
  const { owner, runtime, drop } = await databaseWithRuntimeRole("processes");
  const adminPassword = `processes admin ${randomBytes(6).toString("hex")}`;
  const dirs: string[] = [];
  const procs: Proc[] = [];
  const common = {
    ...env,
    DATABASE_URL: runtime.toString(),
    FLEETSKEW_SECRET_KEY: env.FLEETSKEW_SECRET_KEY ?? randomBytes(32).toString("base64"),
  };
  return {
    ownerUrl: owner.toString(),
    runtimeUrl: runtime.toString(),
    adminPassword,
    env: common,
    async startWeb(name) {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), `fleetskew-${name}-`));
      dirs.push(dataDir);
      const port = await freePort();
      const started = await runStart({
        ...common,
        PORT: String(port),
        HOST: "127.0.0.1",
        FLEETSKEW_DATA_DIR: dataDir,
        FLEETSKEW_DEMO: "0",
        FLEETSKEW_ADMIN_PASSWORD: adminPassword,
        FLEETSKEW_MIGRATION_DATABASE_URL: owner.toString(),
      });
      const proc = { name, ...started, processName: () => undefined };
      procs.push(proc);
      return { ...proc, url: `http://127.0.0.1:${port}` };
    },
    async startCollector(name) {
      const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/collector.ts")], {
        cwd: root,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...common, NODE_ENV: "production", FLEETSKEW_MIGRATE: "0" },
      });
      let output = "";
      child.stdout!.on("data", (d) => (output += d));
      child.stderr!.on("data", (d) => (output += d));
      const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
      const proc: Proc = {
        name,
        child,
        output: () => output,
        exited,
        processName: () => /fleetskew collector (collector:\S+):/.exec(output)?.[1],
      };
      procs.push(proc);
      await new Promise<void>((resolve, reject) => {
        const timer = setInterval(() => {
          if (proc.processName()) {
            clearInterval(timer);
            resolve();
          }
        }, 100);
        void exited.then((code) => {
          clearInterval(timer);
          reject(new Error(`collector ${name} exited (${code}) before it was sweeping:\n${output}`));
        });
      });
      return proc;
    },
    async stop() {
      for (const p of procs) p.child.kill("SIGTERM");
      await Promise.race([Promise.all(procs.map((p) => p.exited)), new Promise((r) => setTimeout(r, 10_000))]);
      for (const p of procs) p.child.kill("SIGKILL");
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await drop();
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of many routes, read by tests
type Json = any;

/** A tiny HTTP client with one session cookie, so a test can carry a session from one process to another. */
export async function call(
  url: string,
  init: { method?: string; cookie?: string; json?: unknown; form?: FormData } = {},
): Promise<{ status: number; body: Json; cookie?: string }> {
  const headers: Record<string, string> = {};
  if (init.cookie) headers.cookie = init.cookie;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url, {
    method: init.method ?? (init.json !== undefined || init.form ? "POST" : "GET"),
    headers,
    body: init.form ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined),
  });
  const text = await response.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  const setCookie = response.headers.get("set-cookie");
  return { status: response.status, body, cookie: setCookie ? setCookie.split(";")[0] : undefined };
}
