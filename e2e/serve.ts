/**
 * Starts the built console for the browser tests on a fresh database, and removes it afterwards:
 *   tsx e2e/serve.ts postgres   a new database on the test Postgres server, migrated by its owner and
 *                               served by a runtime role that may only append to the audit log
 *   tsx e2e/serve.ts embedded   a new embedded database in a temporary directory
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

const mode = process.argv[2];
if (mode !== "postgres" && mode !== "embedded") throw new Error("usage: tsx e2e/serve.ts postgres|embedded");

const root = path.resolve(__dirname, "..");
const baseUrl = process.env.FLEETSKEW_TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const dataDir = mkdtempSync(path.join(os.tmpdir(), `fleetskew-e2e-${mode}-`));
const dbName = `fleetskew_e2e_${process.pid}_${randomBytes(3).toString("hex")}`;
const runtimeRole = `${dbName}_runtime`;

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function main() {
  const env: NodeJS.ProcessEnv = { ...process.env, FLEETSKEW_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  if (mode === "postgres") {
    await admin(`CREATE DATABASE "${dbName}"`);
    await admin(`CREATE ROLE "${runtimeRole}" LOGIN`);
    const url = new URL(baseUrl);
    url.pathname = `/${dbName}`;
    env.FLEETSKEW_MIGRATION_DATABASE_URL = url.toString();
    url.username = runtimeRole;
    env.DATABASE_URL = url.toString();
  }
  const child = spawn(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "scripts/start.ts")], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  let cleaned = false;
  const cleanup = async () => {
    if (cleaned) return;
    cleaned = true;
    rmSync(dataDir, { recursive: true, force: true });
    if (mode === "postgres") {
      await admin(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).catch(() => undefined);
      await admin(`DROP ROLE IF EXISTS "${runtimeRole}"`).catch(() => undefined);
    }
  };
  const stop = () => child.kill("SIGTERM");
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  child.on("exit", async (code) => {
    await cleanup();
    process.exit(code ?? 0);
  });
}

main().catch(async (error) => {
  console.error(error);
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(1);
});
