/**
 * `fleetskew …`: runs one command and answers its exit code (cli/args.ts EXIT). Everything it needs
 * from outside (arguments, environment, output streams, files, fetch) is given, so tests run it as
 * it is; cli/fleetskew.ts is the process's entry.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fleetEndpoints } from "../server/fleet/contract";
import { FleetListQuerySchema, ReadinessQuery } from "../server/fleet/requestContract";
import { rolloutEndpoints, RolloutPlanAnswer, RolloutView } from "../server/rollouts/contract";
import { EXIT, HELP, parseCommandLine, UsageError, type Command, type Global } from "./args";
import { callEndpoint, RequestFailed, type Connection } from "./client";
import {
  formatClusters,
  formatPlan,
  formatReadiness,
  formatSaved,
  formatStatus,
  nothingPlanned,
  statusExitCode,
  watchEnds,
} from "./format";
import { MAX_ROLLOUT_FILE_BYTES, readRolloutFile } from "./rolloutFile";

export const DEFAULT_SERVER = "http://127.0.0.1:3000";
/** A fleet of 10,000 clusters is ten pages; more than this is a server going round in circles. */
const MAX_PAGES = 1000;
/** How the server words a selection that leaves nothing to write (server/rollouts/plan.ts). */

class NothingPlanned extends Error {}

export type Io = {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
  fetch?: typeof fetch;
  /** Aborted on Ctrl-C: a watch stops cleanly between polls. */
  signal?: AbortSignal;
  /** `fleetskew preview …`, run in this process (it reads local files only). */
  preview?: (args: string[]) => number;
};

const isLoopback = (host: string) => host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);

/** The console's address and the token, from flags or the environment, checked before anything is sent. */
export function connectionFor(global: Global, env: Readonly<Record<string, string | undefined>>): Connection {
  const text = (global.server ?? env.FLEETSKEW_URL ?? "").trim() || DEFAULT_SERVER;
  let server: URL;
  try {
    server = new URL(text);
  } catch {
    throw new UsageError(`--server / FLEETSKEW_URL "${text.slice(0, 100)}" is not a URL such as https://fleetskew.example.com`);
  }
  if (server.protocol !== "https:" && server.protocol !== "http:")
    throw new UsageError(`--server must be an http or https URL, not ${server.protocol}`);
  if (server.username || server.password)
    throw new UsageError("--server must not carry a user or password; give the token in FLEETSKEW_TOKEN");
  if (server.pathname !== "/" || server.search || server.hash)
    throw new UsageError(`--server is the console's address alone (${server.origin}), without a path`);
  const token = (global.token ?? env.FLEETSKEW_TOKEN ?? "").trim() || undefined;
  if (token && !/^[\x21-\x7e]{1,512}$/.test(token))
    throw new UsageError("the token holds characters a token never has (spaces, line breaks); check FLEETSKEW_TOKEN");
  if (token && server.protocol === "http:" && !isLoopback(server.hostname) && !global.allowHttp)
    throw new UsageError(
      `refusing to send the token over plain http to ${server.host}; use https, or --allow-http if this network is trusted`,
    );
  const session = (env.FLEETSKEW_SESSION ?? "").trim() || undefined;
  if (session && token) throw new UsageError("give a token or FLEETSKEW_SESSION, not both");
  if (session && !/^[\w-]{16,256}$/.test(session))
    throw new UsageError("FLEETSKEW_SESSION is not a session cookie's value (fleetskew_session=…, without the name)");
  if ((token || session) && server.protocol === "http:" && !isLoopback(server.hostname) && !global.allowHttp)
    throw new UsageError(
      `refusing to send ${token ? "the token" : "the session"} over plain http to ${server.host}; use https, or --allow-http if this network is trusted`,
    );
  return { server, token, session, timeoutMs: global.timeoutMs };
}

function readFile(file: string, cwd: string): string {
  const full = path.resolve(cwd, file);
  try {
    const text = readFileSync(full);
    if (text.byteLength > MAX_ROLLOUT_FILE_BYTES)
      throw new UsageError(`${file}: larger than ${MAX_ROLLOUT_FILE_BYTES / 1024} KiB; a rollout file is a few lines`);
    return text.toString("utf8");
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : (error as Error).message}`,
    );
  }
}

/** `skew=blocked&platform=AWS`, checked as the server checks the fleet's query. */
function fleetQuery(text: string): Record<string, string> {
  const entries = Object.fromEntries(new URLSearchParams(text));
  for (const paging of ["after", "limit"])
    if (paging in entries) throw new UsageError(`--query: leave ${paging} out; the command reads every page`);
  const checked = FleetListQuerySchema.safeParse(entries);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new UsageError(`--query: ${issue.path.join(".") || "query"}: ${issue.message}`);
  }
  return entries;
}

async function run(command: Exclude<Command, { name: "help" | "preview" }>, global: Global, io: Io): Promise<number> {
  const connection = connectionFor(global, io.env);
  const call = <E extends Parameters<typeof callEndpoint>[1]>(endpoint: E, input: Parameters<typeof callEndpoint<E>>[2] = {}) =>
    callEndpoint(connection, endpoint, input, { fetch: io.fetch, signal: io.signal });
  const json = (value: unknown) => io.out(JSON.stringify(value, null, 2));

  switch (command.name) {
    case "clusters list": {
      const query = fleetQuery(command.query);
      const clusters = [];
      let total = 0;
      let after: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await call(fleetEndpoints.list, { query: { ...query, limit: 1000, after } });
        clusters.push(...answer.clusters);
        total = answer.total;
        if (!answer.next || answer.clusters.length === 0) break;
        after = answer.next;
      }
      if (global.output === "json") json({ clusters, total });
      else io.out(formatClusters(clusters, total));
      return EXIT.ok;
    }
    case "readiness": {
      const checked = ReadinessQuery.safeParse({ target: command.target });
      if (!checked.success) throw new UsageError(`--target ${checked.error.issues[0]!.message}`);
      const answer = await call(fleetEndpoints.readiness, { params: { name: command.cluster }, query: { target: command.target } });
      if (global.output === "json") json(answer);
      else io.out(formatReadiness(command.cluster, answer));
      return EXIT.ok;
    }
    case "rollout plan": {
      const read = readRolloutFile(readFile(command.file, io.cwd), command.dryRun);
      if (!read.ok)
        throw new UsageError(`${command.file} is not a valid rollout request:\n${read.problems.map((p) => `  ${p}`).join("\n")}`);
      const answer = await call(rolloutEndpoints.create, { body: read.body }).catch((error: unknown) => {
        // The server refuses a selection with no cluster (or, saving, one whose every cluster was excluded) as a 400
        // whose `field` is `selection`: for a pipeline that is "nothing planned", told apart from a refused request
        // (a selection outside the planner's scope is a 403: refused).
        if (error instanceof RequestFailed && error.status === 400 && error.field === "selection") throw new NothingPlanned(error.message);
        throw error;
      });
      if (global.output === "json") json(answer);
      // The answer is the plan for a dry run, the saved rollout otherwise; each schema tells them apart.
      const plan = RolloutPlanAnswer.safeParse(answer);
      if (plan.success) {
        if (global.output === "text") io.out(formatPlan(plan.data, command.dryRun ? "Plan (dry run: nothing saved)" : "Plan"));
        const none = nothingPlanned(plan.data);
        if (none) io.err(`fleetskew: nothing planned: ${none}`);
        return none ? EXIT.nothingPlanned : EXIT.ok;
      }
      const rollout = RolloutView.parse(answer);
      if (global.output === "text") io.out(formatSaved(rollout, connection.server));
      return rollout.included === 0 ? EXIT.nothingPlanned : EXIT.ok;
    }
    case "rollout status": {
      let lastShown: string | null = null;
      for (;;) {
        const rollout = await call(rolloutEndpoints.get, { params: { id: command.id } }).catch(async (error: unknown) => {
          // While watching, a busy or restarting server is waited for as it asks (Retry-After).
          if (command.watch && error instanceof RequestFailed && (error.status === 429 || error.status === 503)) {
            await sleep((error.retryAfter ?? command.intervalMs / 1000) * 1000, undefined, { signal: io.signal });
            return null;
          }
          throw error;
        });
        if (!rollout) continue;
        // A watch prints the rollout again only when something in it changed.
        const shown = global.output === "json" ? JSON.stringify(rollout, null, 2) : formatStatus(rollout, connection.server);
        if (shown !== lastShown) io.out(lastShown === null || global.output === "json" ? shown : `\n${shown}`);
        lastShown = shown;
        if (!command.watch || watchEnds(rollout)) return statusExitCode(rollout);
        await sleep(command.intervalMs, undefined, { signal: io.signal });
      }
    }
  }
}

/** Runs the command line and answers the exit code; never throws for what a person or server can get wrong. */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
    if (parsed.command.name === "help") {
      io.out(HELP);
      return argv.length === 0 ? EXIT.usage : EXIT.ok;
    }
    if (parsed.command.name === "preview") {
      if (!io.preview) throw new UsageError("preview is not available here");
      return io.preview(parsed.command.args);
    }
    return await run(parsed.command, parsed.global, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`fleetskew: ${error.message}`);
      return EXIT.usage;
    }
    if (error instanceof NothingPlanned) {
      io.err(`fleetskew: nothing planned: ${error.message}`);
      return EXIT.nothingPlanned;
    }
    if (error instanceof RequestFailed) {
      io.err(`fleetskew: ${error.message}`);
      return EXIT.failed;
    }
    if ((error as Error).name === "AbortError" && io.signal?.aborted) return 130;
    throw error;
  }
}
