/**
 * The standalone build as the container runs it (see Containerfile and docs/deploy.md): a copy of
 * .next/standalone that nobody may write, started as an arbitrary non-root UID in group 0 (the
 * way OpenShift's restricted SCC assigns one), with only a temporary directory writable and HOME
 * pointing into the read-only copy. Migrations run first as their own step, as the deployment's
 * init container does, and the server then only checks them (FLEETSKEW_MIGRATE=0).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomInt } from "node:crypto";
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { createTestDatabase, type TestDatabase } from "../server/testing/postgres";

const root = path.resolve(__dirname, "..");
const standalone = path.join(root, ".next/standalone");
const migrations = readdirSync(path.join(root, "prisma/migrations"), { withFileTypes: true }).filter((d) => d.isDirectory()).length;
const ADMIN_PASSWORD = "standalone admin password";

const isRoot = process.getuid?.() === 0;
// OpenShift assigns a UID from the namespace's range (e.g. 1000870000) with GID 0; one no account
// on this machine has, so every file it leaves behind can be found by owner.
const uid = isRoot ? 1_000_870_000 + randomInt(10_000) : process.getuid!();
const gid = isRoot ? 0 : process.getgid!();

function asTheContainerUser(args: string[]): [string, string[]] {
  if (!isRoot) return [process.execPath, args];
  const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find(existsSync);
  // setpriv is util-linux, part of every Debian and RHEL base system; without it the test would
  // run the server as root, which proves nothing about the container.
  if (!setpriv) throw new Error("running as root, and util-linux setpriv is missing: cannot start the server as a non-root user");
  return [setpriv, [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", process.execPath, ...args]];
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

type Started = { child: ChildProcess; url: string; output: () => string };

let work: string;
let app: string;
let writable: string;
let db: TestDatabase;
const started: Started[] = [];

/** The environment the image and a pod give the container: nothing of this machine's but PATH. */
function containerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    NODE_ENV: "production",
    HOME: app,
    TMPDIR: writable,
    HOST: "127.0.0.1",
    FLEETSKEW_DEMO: "0",
    ...extra,
  };
}

async function startServer(extra: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const [command, args] = asTheContainerUser(["scripts/start.js"]);
  const child = spawn(command, args, { cwd: app, env: containerEnv({ PORT: String(port), ...extra }) });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const server = { child, url: `http://127.0.0.1:${port}`, output: () => output };
  started.push(server);
  const deadline = Date.now() + 90_000;
  while (!output.includes("console ready")) {
    if (child.exitCode !== null) throw new Error(`the standalone server exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`the standalone server did not start within 90 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return server;
}

test.describe.configure({ mode: "serial", timeout: 120_000 });

test.beforeAll(async () => {
  expect(existsSync(path.join(standalone, "scripts/start.js")), "run `npm run build` first: it writes .next/standalone").toBe(true);
  work = mkdtempSync(path.join(os.tmpdir(), "fleetskew-standalone-"));
  chmodSync(work, 0o755);
  app = path.join(work, "app");
  cpSync(standalone, app, { recursive: true, verbatimSymlinks: true });
  // Read-only for everyone: the container's root file system. Root owns it, so the server's UID
  // could not make it writable again either.
  spawnSync("chmod", ["-R", "a-w", app]);
  writable = path.join(work, "tmp");
  mkdirSync(writable, { mode: 0o700 });
  if (isRoot) chownSync(writable, uid, gid);
  db = await createTestDatabase();
});

test.afterAll(async () => {
  for (const { child } of started) {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  }
  await db?.drop();
  if (work) {
    spawnSync("chmod", ["-R", "u+w", work]);
    rmSync(work, { recursive: true, force: true });
  }
});

test("migrations run as their own step, then the server starts as a non-root user from the read-only copy", async ({ page }) => {
  const [command, args] = asTheContainerUser(["scripts/migrate.js"]);
  const migrate = spawnSync(command, args, { cwd: app, env: containerEnv({ DATABASE_URL: db.url }), encoding: "utf8" });
  expect(migrate.stderr).toBe("");
  expect(migrate.status).toBe(0);
  expect(migrate.stdout).toContain(`${migrations} migration(s) applied, 0 already in place (postgres database)`);

  const server = await startServer({
    DATABASE_URL: db.url,
    FLEETSKEW_MIGRATE: "0",
    FLEETSKEW_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FLEETSKEW_DATA_DIR: path.join(writable, "data"),
  });
  expect(server.output()).toContain(`database: postgres (${migrations} migrations, 0 applied now)`);
  expect(server.output()).not.toContain("building the console");

  // The process is the container user, not root.
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  const ids = (field: string) => status.match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))![1];
  expect(Number(ids("Uid"))).toBe(uid);
  expect(Number(ids("Gid"))).toBe(gid);
  expect(uid).not.toBe(0);

  const health = await page.request.get(`${server.url}/api/health`);
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ status: "ok", database: "postgres", migrations });

  // Signing in through the page needs the client bundles and styles from the copy.
  await page.goto(`${server.url}/login`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  const stylesheet = await page.evaluate(() => [...document.styleSheets].some((s) => s.href?.includes("/_next/static/")));
  expect(stylesheet).toBe(true);
});

test("with no DATABASE_URL the copy runs the embedded database and the demo fleet in the temp dir", async ({ request }) => {
  const dataDir = path.join(writable, "embedded");
  const server = await startServer({ FLEETSKEW_DATA_DIR: dataDir, FLEETSKEW_DEMO: "1", FLEETSKEW_ADMIN_PASSWORD: ADMIN_PASSWORD });
  expect(server.output()).toContain(`database: embedded, in ${dataDir}/pgdata (${migrations} migrations, ${migrations} applied now)`);
  expect(server.output()).toMatch(/demo fleet: 13 simulated clusters/);
  const health = await request.get(`${server.url}/api/health`);
  expect(await health.json()).toEqual({ status: "ok", database: "embedded", migrations });
});

test("nothing was written outside the temp dir", async () => {
  // Wherever this UID could write on this machine: world-writable places, and the copy itself.
  const found = spawnSync("find", [work, "/tmp", "/var/tmp", "/dev/shm", "-xdev", "-uid", String(uid), "-print"], { encoding: "utf8" });
  const outside = found.stdout
    .split("\n")
    .filter(Boolean)
    .filter((p) => p !== writable && !p.startsWith(`${writable}/`));
  if (isRoot) expect(outside).toEqual([]);
  // The temp dir is where the embedded database went, so the check above looked at real writes.
  expect(existsSync(path.join(writable, "embedded/pgdata"))).toBe(true);
});
