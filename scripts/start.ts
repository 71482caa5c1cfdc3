/**
 * `npm start`: one process serving the console. Reserves the port, builds when the build is
 * missing or stale, opens the database (DATABASE_URL, else the embedded one), migrates, creates
 * the first accounts, then hands requests to Next.js. Configuration mistakes print one line.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import type { Socket } from "node:net";
import path from "node:path";
import { ensureInitialAccounts, type BootstrapResult } from "../server/auth/bootstrap";
import { ConfigError, readConfig, type AppConfig } from "../server/config/env";
import { GLOBAL_BODY_LIMIT, sizeText } from "../server/http/body";
import { CLIENT_IP_HEADER, isHttpsRequest, markSocketPeerHeader } from "../server/http/request";
import { newNonce, securityHeaders } from "../server/http/securityHeaders";
import { sealPlainPreviewInputs } from "../server/preview/storedInputs";
import { superviseBackgroundProcess, type BackgroundProcess } from "../server/runtime/backgroundProcess";
import { buildIsCurrent } from "../server/runtime/buildFreshness";
import { checkDatabaseReachable, openDatabase, type OpenedDatabase } from "../server/runtime/database";
import { createNextHandler, runsFromStandaloneBuild } from "../server/runtime/nextHandler";
import { prepareSchema } from "../server/runtime/schema";
import { countRealClusters, DEMO_HUB, registerDemoFleet } from "../server/clusters/demo";
import { invalidateFleetList } from "../server/fleet/fleetList";
import { registerDemoHub } from "../server/hubs/hubs";
import { startDemoHub, type DemoHub } from "../server/simulator/hub/demo";
import { prepareSecretKeys } from "../server/runtime/secretKeys";
import { agreeOnSecretKey } from "../server/secrets/sharedKey";
import { processIdentity } from "../server/runtime/identity";
import { startDemoFleet, type DemoFleet } from "../server/simulator/demo";
import { closeDb } from "../server/store/db";
import { auditLogExposure, grantRuntimeRole, migrate, MigrationError } from "../server/store/migrate";

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

/**
 * Bounds every request body at GLOBAL_BODY_LIMIT, whatever handles it: a declared length over it is
 * refused at once, and a chunked body is counted as the socket delivers it (the HTTP parser hands
 * each piece to req.push) and cut off at the limit. Routes set smaller limits of their own.
 */
function limitBody(req: http.IncomingMessage, res: http.ServerResponse, max: number): boolean {
  // Taken now: by the time a late answer is written, the request may no longer point at it.
  const socket = req.socket;
  // A response sent before the body was read (a refusal, a route that takes no body) closes the
  // connection after it, rather than reading a body nobody will use.
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, ...args: Parameters<typeof writeHead>) {
    if (!req.complete && !this.headersSent) {
      this.setHeader("connection", "close");
      lingerOnClose(req, socket);
    }
    return writeHead.apply(this, args);
  } as typeof writeHead;
  let refused = false;
  const refuse = () => {
    if (refused) return;
    refused = true;
    // Whatever else still writes to this response (Next.js mid-request) must not crash the process.
    res.on("error", () => undefined);
    if (!res.headersSent) {
      res.writeHead(413, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify({ error: `The request body is larger than ${sizeText(max)}, the most any request may send` }));
    }
  };
  if (Number(req.headers["content-length"] ?? "0") > max) {
    refuse();
    return false;
  }
  let seen = 0;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk !== null && chunk !== undefined) {
      seen += (chunk as Uint8Array).length;
      if (seen > max) {
        refuse();
        // Dropped, never kept: the socket goes on reading so the lingering close below can drain it.
        return true;
      }
    }
    return push(chunk, encoding);
  };
  return true;
}

/** How long an idle keep-alive connection is kept open for the client's next request. */
const KEEP_ALIVE_MS = 65_000;

/** How long a socket answered before its body was read goes on draining what the client still sends. */
const LINGER_MS = 2_000;

/**
 * A lingering close, as nginx and Apache do it: once the early answer is written, the socket's write
 * side is closed and whatever the client still sends is read and dropped until it stops (or for
 * LINGER_MS at most), then the socket closes. Closing at once, with the client's bytes unread in the
 * kernel, sends a TCP reset that can reach the client before it has read the answer, so it sees a
 * broken connection instead of the 413.
 */
function lingerOnClose(req: http.IncomingMessage, socket: Socket) {
  if (socket.destroyed) return;
  // Node's HTTP server calls destroySoon once a `connection: close` response has finished.
  socket.destroySoon = function (this: typeof socket) {
    if (this.destroyed) return;
    req.push = () => true;
    this.end();
    this.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once("end", () => this.destroy());
    this.once("close", () => clearTimeout(timer));
  };
}

/** Security headers on every answer; pages' scripts run only with this request's nonce. */
function secure(req: http.IncomingMessage, res: http.ServerResponse, config: AppConfig) {
  const headers = new Headers();
  for (const name of ["host", "x-forwarded-proto", "x-forwarded-host"]) {
    const value = req.headers[name];
    if (typeof value === "string") headers.set(name, value);
  }
  const nonce = newNonce();
  const set = securityHeaders({ https: isHttpsRequest(headers, config), dev, nonce });
  // Next.js takes the nonce from the request's policy; a client's own header is replaced.
  req.headers["content-security-policy"] = set["content-security-policy"];
  delete req.headers["content-security-policy-report-only"];
  for (const [name, value] of Object.entries(set)) res.setHeader(name, value);
}

/**
 * Migrations run as the database owner (FLEETSKEW_MIGRATION_DATABASE_URL, else DATABASE_URL); the
 * runtime role then gets only what it needs (grantRuntimeRole). A console that connects as a role
 * able to alter the audit log starts with a warning.
 */
async function migrateDatabase(config: AppConfig, database: OpenedDatabase) {
  const dir = path.join(root, "prisma/migrations");
  // FLEETSKEW_MIGRATE=0: a migration step of its own, with the owner role, applies them; this process waits.
  if (!config.migrate) return prepareSchema(database.url, { dir, migrate: false, log });
  const ownerUrl = database.mode === "postgres" && config.migrationDatabaseUrl ? config.migrationDatabaseUrl : database.url;
  if (ownerUrl !== database.url) await checkDatabaseReachable(ownerUrl);
  const result = await migrate(ownerUrl, { dir, log });
  if (database.mode !== "postgres") return result;
  if (ownerUrl !== database.url) {
    const granted = await grantRuntimeRole(ownerUrl, database.url);
    if (granted) log(`database: migrated as the owner; the console connects as "${granted.role}", which may only append to the audit log`);
  }
  const exposure = await auditLogExposure(database.url);
  if (exposure.canAlter || exposure.canModify)
    log(
      `warning: the console connects to the database as "${exposure.role}", which ${exposure.canAlter ? "owns the audit log (it could alter it or drop its append-only trigger)" : "may change audit rows (only the trigger stops it)"}; set FLEETSKEW_MIGRATION_DATABASE_URL to the owner and DATABASE_URL to a less privileged role (docs/security.md)`,
    );
  return result;
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
    if (!limitBody(req, res, GLOBAL_BODY_LIMIT)) return;
    secure(req, res, config);
    handler(req, res);
  });
  // Node closes an idle keep-alive connection after 5 s, so a client (or a proxy in front) that sends
  // its next request on it at that moment gets a reset instead of an answer. Kept open longer than a
  // page's or a script's pauses between requests, the race is rare; a proxy with a shorter idle
  // timeout than this closes first, which is the safe way round.
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  markSocketPeerHeader();
  await listen(server, config.port, config.host);

  let database: OpenedDatabase | undefined;
  let demoFleet: DemoFleet | undefined;
  let demoHub: DemoHub | undefined;
  let background: BackgroundProcess | undefined;
  const shutdown = async (signal: string) => {
    log(`${signal}: shutting down`);
    server.close();
    // Before the database closes: the background process finishes what it has in flight.
    await background?.stop().catch(() => undefined);
    demoFleet?.reconciler.stop();
    await demoFleet?.sim.close().catch(() => undefined);
    await demoHub?.stop().catch(() => undefined);
    await closeDb().catch(() => undefined);
    await database?.embedded?.stop().catch(() => undefined);
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));

  database = await openDatabase(config);
  // A start that fails from here on still closes the embedded database and removes its socket.
  stopEmbedded = () => database?.embedded?.stop() ?? Promise.resolve();
  // The standalone build (the container image) is built already and has no sources to rebuild from.
  if (!dev && !runsFromStandaloneBuild() && !(await buildIsCurrent(root))) {
    log("building the console (the first start takes a minute or two)…");
    await runBuild();
  }
  process.env.DATABASE_URL = database.url;
  process.env.FLEETSKEW_DATABASE_MODE = database.mode;
  const { applied, total } = await migrateDatabase(config, database);
  log(
    `database: ${database.mode === "embedded" ? `embedded, in ${path.join(config.dataDir, "pgdata")}` : "postgres"} (${total} migrations, ${applied.length} applied now)`,
  );

  const keys = await prepareSecretKeys(config);
  if (keys.created) log(`created the secret key for credentials at rest in ${path.join(config.dataDir, "secret.key")}; back it up`);
  // Every process on this database must seal with one key: a replica with another refuses to start.
  const agreed = await agreeOnSecretKey(keys.ring, processIdentity("web").name);
  if (agreed.outcome === "rotated")
    log(
      `the secret key moved from ${agreed.previousKeyId} to ${keys.ring.current.id}; run npm run keys:reseal once every process has the new key`,
    );
  if (keys.underOldKeys > 0) log(`${keys.underOldKeys} secret(s) are sealed under an older key or format; run npm run keys:reseal`);
  const sealedNow = await sealPlainPreviewInputs();
  if (sealedNow > 0) log(`sealed the configuration kept for offline previews of ${sealedNow} cluster(s)`);

  const demo = config.demo && (await countRealClusters()) === 0;
  printAccounts(await ensureInitialAccounts({ dataDir: config.dataDir, adminPassword: config.adminPassword, demo }), config.dataDir);
  if (demo && config.demoHub) {
    // The demo fleet from a simulated ACM hub: registered as a hub, its clusters reached through its cluster-proxy.
    demoHub = await startDemoHub({ dataDir: config.dataDir, clusters: DEMO_CLUSTERS });
    const outcome = await registerDemoHub(DEMO_HUB, demoHub.sim.registration());
    log(
      `demo hub: ${DEMO_HUB}, a simulated ACM hub of ${demoHub.sim.hub.memberNames().length} managed clusters on ${demoHub.sim.hubUrl} (${outcome}); its clusters arrive within seconds, see Admin → Hubs`,
    );
  } else if (demo) {
    demoFleet = await startDemoFleet({ dataDir: config.dataDir, clusters: DEMO_CLUSTERS });
    const added = await registerDemoFleet(demoFleet);
    // The demo clusters' Routes (the alerts' Thanos querier) are served by the simulator, not by DNS.
    process.env.FLEETSKEW_CONNECT_TO = [process.env.FLEETSKEW_CONNECT_TO, demoFleet.sim.connectTo].filter(Boolean).join(",");
    log(
      `demo fleet: ${demoFleet.specs.length} simulated clusters on ${demoFleet.sim.url}${added ? ` (${added} registered now)` : ""}; register a real cluster under Admin → Clusters`,
    );
  }
  // From here on only Next's module graph uses the database in this process; the background work runs
  // in a process of its own (the embedded database's socket lets both take turns on its one session).
  await closeDb();
  if (process.env.FLEETSKEW_BACKGROUND !== "0")
    background = superviseBackgroundProcess({
      // Beside the file actually running: scripts/start.ts under tsx, scripts/start.js in the standalone
      // build (whose bundles see __filename as the source's path).
      script: path.join(path.dirname(process.argv[1]!), path.basename(process.argv[1]!).replace(/^start/, "background")),
      // The sweeps' native memory (TLS, HTTP/2, compression) is allocated on many threads; glibc's
      // default of eight malloc arenas a core keeps what each freed (docs/operations.md, "Memory").
      env: { MALLOC_ARENA_MAX: "2", ...process.env },
      // The sweeps in flight hold their answers across V8's young-generation collections: a larger
      // young generation promotes less of them, a fifth less CPU a steady sweep (docs/operations.md, "Memory").
      nodeOptions: ["--max-semi-space-size=32"],
      log,
      // The fleet list's cache is this process's (on globalThis, shared with Next's module graph).
      onMessage: (message) => invalidateFleetList(message.cause),
    });

  const handle = await createNextHandler({ dev, root, host: config.host, port: config.port });
  handler = (req, res) => void handle(req, res);

  const shownHost = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
  log(`console ready on http://${shownHost.includes(":") ? `[${shownHost}]` : shownHost}:${config.port}`);
}

let stopEmbedded: () => Promise<void> = () => Promise.resolve();

main().catch(async (error) => {
  await stopEmbedded().catch(() => undefined);
  if (error instanceof ConfigError || error instanceof MigrationError) {
    console.error(`fleetskew: ${error.message}`);
  } else {
    console.error("fleetskew: could not start:", error);
  }
  process.exit(1);
});
