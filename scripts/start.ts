/**
 * `npm start`: one process serving the console. Reserves the port, builds when the build is
 * missing or stale, opens the database (DATABASE_URL, else the embedded one), migrates, creates
 * the first accounts, then hands requests to Next.js. Configuration mistakes print one line.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { ensureInitialAccounts, type BootstrapResult } from "../server/auth/bootstrap";
import { ConfigError, readConfig } from "../server/config/env";
import { CLIENT_IP_HEADER } from "../server/http/request";
import { buildIsCurrent } from "../server/runtime/buildFreshness";
import { openDatabase, type OpenedDatabase } from "../server/runtime/database";
import { createNextHandler, runsFromStandaloneBuild } from "../server/runtime/nextHandler";
import { prepareSchema } from "../server/runtime/schema";
import { countRealClusters, registerDemoFleet } from "../server/clusters/demo";
import { startDemoFleet, type DemoFleet } from "../server/simulator/demo";
import { closeDb } from "../server/store/db";
import { MigrationError } from "../server/store/migrate";

const root = path.resolve(__dirname, "..");
const dev = process.argv.includes("--dev");
const log = (line: string) => console.log(`fleetskew: ${line}`);
const DEMO_CLUSTERS = 12;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") reject(new ConfigError(`port ${port} on ${host} is already in use; stop what uses it or set PORT`));
      else if (error.code === "EACCES") reject(new ConfigError(`no permission to listen on ${host}:${port}; choose a PORT above 1023`));
      else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND")
        reject(new ConfigError(`HOST ${host} is not an address of this machine`));
      else reject(error);
    });
    server.listen(port, host, () => resolve());
  });
}

function runBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules/tsx/dist/cli.mjs"), path.join(root, "scripts/build.ts")], {
      cwd: root,
      stdio: "inherit",
    });
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new ConfigError(`the build failed (exit code ${code}); see the output above`)),
    );
    child.on("error", reject);
  });
}

function printAccounts(result: BootstrapResult, dataDir: string) {
  const rel = (p: string) => path.relative(process.cwd(), p) || p;
  for (const account of result.created.filter((a) => a.generated)) {
    log(`created ${account.role} account "${account.username}" with password ${account.password}  (shown once)`);
  }
  if (result.adminPasswordFile) log(`the admin password is also in ${rel(result.adminPasswordFile)}`);
  const demoFile = result.demoCredentialsFile ?? path.join(dataDir, "demo-credentials.json");
  if (existsSync(demoFile)) log(`demo credentials: ${rel(demoFile)}`);
  else if (result.created.length === 0) log("sign in with an existing account");
}

async function main() {
  const config = readConfig();
  let handler: Handler = (_req, res) => {
    res.writeHead(503, { "content-type": "text/plain", "retry-after": "5" });
    res.end("Fleetskew is starting; try again in a few seconds.\n");
  };
  const server = http.createServer((req, res) => {
    // Route code learns the caller's address and the page asked for from these headers; a
    // client's own values are dropped so they cannot be forged.
    req.headers[CLIENT_IP_HEADER] = req.socket.remoteAddress ?? "unknown";
    req.headers["x-fleetskew-path"] = req.url ?? "/";
    handler(req, res);
  });
  await listen(server, config.port, config.host);

  let database: OpenedDatabase | undefined;
  let demoFleet: DemoFleet | undefined;
  const shutdown = async (signal: string) => {
    log(`${signal}: shutting down`);
    server.close();
    demoFleet?.reconciler.stop();
    await demoFleet?.sim.close().catch(() => undefined);
    await closeDb().catch(() => undefined);
    await database?.embedded?.stop().catch(() => undefined);
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));

  database = await openDatabase(config);
  // The standalone build (the container image) is built already and has no sources to rebuild from.
  if (!dev && !runsFromStandaloneBuild() && !(await buildIsCurrent(root))) {
    log("building the console (the first start takes a minute or two)…");
    await runBuild();
  }
  process.env.DATABASE_URL = database.url;
  process.env.FLEETSKEW_DATABASE_MODE = database.mode;
  const { applied, total } = await prepareSchema(database.url, { dir: path.join(root, "prisma/migrations"), migrate: config.migrate, log });
  log(
    `database: ${database.mode === "embedded" ? `embedded, in ${path.join(config.dataDir, "pgdata")}` : "postgres"} (${total} migrations, ${applied.length} applied now)`,
  );

  const demo = config.demo && (await countRealClusters()) === 0;
  printAccounts(await ensureInitialAccounts({ dataDir: config.dataDir, adminPassword: config.adminPassword, demo }), config.dataDir);
  if (demo) {
    demoFleet = await startDemoFleet({ dataDir: config.dataDir, clusters: DEMO_CLUSTERS });
    const added = await registerDemoFleet(demoFleet);
    log(
      `demo fleet: ${demoFleet.specs.length} simulated clusters on ${demoFleet.sim.url}${added ? ` (${added} registered now)` : ""}; register a real cluster under Admin → Clusters`,
    );
  }
  // From here on only Next's module graph uses the database (instrumentation.ts runs background work).
  await closeDb();

  const handle = await createNextHandler({ dev, root, host: config.host, port: config.port });
  handler = (req, res) => void handle(req, res);

  const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  log(`console ready on http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${config.port}`);
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof MigrationError) {
    console.error(`fleetskew: ${error.message}`);
  } else {
    console.error("fleetskew: could not start:", error);
  }
  process.exit(1);
});
