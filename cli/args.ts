/**
 * The command line's words, read into one command (pure: no file, network or environment is
 * touched here, so every mistake is a usage error named before anything is sent).
 */
import { parseArgs } from "node:util";

export const EXIT = {
  /** Done as asked. */
  ok: 0,
  /** The server refused the request (4xx/5xx, its message on stderr), or it could not be reached. */
  failed: 1,
  /** The command line or the file it names is wrong; nothing was sent. */
  usage: 2,
  /** `rollout status`: the rollout was aborted, finished with failed clusters, or is paused with failures. */
  rolloutFailed: 3,
  /** `rollout plan`: the plan has no cluster to write (none selected within reach, or every one excluded). */
  nothingPlanned: 4,
} as const;

export const HELP = `fleetskew — the Fleetskew console from a shell or a pipeline

Usage:
  fleetskew clusters list [--query 'skew=blocked&platform=AWS']
  fleetskew readiness CLUSTER [--target 4.19.11]
  fleetskew rollout plan -f rollout.yaml [--dry-run]
  fleetskew rollout status ID|NUMBER [--watch] [--interval SECONDS]
  fleetskew preview --from OLD --to NEW [--policy MC_CONFIGURATION] [--first-boot] [--format json|text]

Options:
  --server URL       the console (default: $FLEETSKEW_URL, else http://127.0.0.1:3000)
  --token TOKEN      an API token (default: $FLEETSKEW_TOKEN; prefer the variable: a flag shows in ps)
                     (for local development, FLEETSKEW_SESSION: a console session cookie's value)
  --output text|json text for people (default), json: the server's answer as it came
  --timeout SECONDS  per request (default 30)
  --allow-http       send the token over plain http to a host other than this machine
  -h, --help         this text

Exit codes:
  0  done as asked
  1  the server refused the request (its message on stderr), or it could not be reached
  2  usage: a wrong flag, an unreadable file, or a rollout file that is not a valid request
  3  rollout status: aborted, completed with failed clusters, or paused with failed clusters
  4  rollout plan: the plan writes no cluster (none selected within your reach, or all excluded)

The rollout file is the body of POST /api/v1/rollouts as YAML (docs/rollouts.md); docs/cli.md
has a worked GitOps example. preview runs locally and keeps its own exit codes (1: unreadable input).`;

export type Output = "text" | "json";

export type Global = {
  server: string | undefined;
  token: string | undefined;
  output: Output;
  timeoutMs: number;
  allowHttp: boolean;
};

export type Command =
  | { name: "help" }
  | { name: "preview"; args: string[] }
  | { name: "clusters list"; query: string }
  | { name: "readiness"; cluster: string; target: string | undefined }
  | { name: "rollout plan"; file: string; dryRun: boolean }
  | { name: "rollout status"; id: string; watch: boolean; intervalMs: number };

export class UsageError extends Error {}

const OPTIONS = {
  server: { type: "string" },
  token: { type: "string" },
  output: { type: "string", short: "o" },
  timeout: { type: "string" },
  "allow-http": { type: "boolean" },
  help: { type: "boolean", short: "h" },
  query: { type: "string", short: "q" },
  target: { type: "string" },
  file: { type: "string", short: "f" },
  "dry-run": { type: "boolean" },
  watch: { type: "boolean", short: "w" },
  interval: { type: "string" },
} as const;

type OptionName = keyof typeof OPTIONS;
const GLOBAL: OptionName[] = ["server", "token", "output", "timeout", "allow-http", "help"];
const OWN: Record<Exclude<Command["name"], "help" | "preview">, OptionName[]> = {
  "clusters list": ["query"],
  readiness: ["target"],
  "rollout plan": ["file", "dry-run"],
  "rollout status": ["watch", "interval"],
};

function seconds(flag: string, text: string | undefined, fallback: number, max: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || value <= 0 || value > max)
    throw new UsageError(`--${flag} must be a number of seconds above 0 and at most ${max}, not "${text.slice(0, 40)}"`);
  return value * 1000;
}

export function parseCommandLine(argv: readonly string[]): { global: Global; command: Command } {
  // preview has flags of its own, read by it: everything after the word is its.
  if (argv[0] === "preview")
    return {
      global: { server: undefined, token: undefined, output: "text", timeoutMs: 30_000, allowHttp: false },
      command: { name: "preview", args: argv.slice(1) },
    };
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ""));
  }
  const { values, positionals } = parsed;
  const output = values.output ?? "text";
  if (output !== "text" && output !== "json") throw new UsageError(`--output must be text or json, not "${output.slice(0, 40)}"`);
  const global: Global = {
    server: values.server,
    token: values.token,
    output,
    timeoutMs: seconds("timeout", values.timeout, 30_000, 600),
    allowHttp: values["allow-http"] ?? false,
  };
  if (values.help || positionals.length === 0) return { global, command: { name: "help" } };

  const [first, second, ...rest] = positionals;
  let command: Command;
  const extra = (words: string[], what: string) => {
    if (words.length) throw new UsageError(`${what} takes no more words; "${words[0]!.slice(0, 60)}" is one too many`);
  };
  if (first === "clusters" && second === "list") {
    extra(rest, "clusters list");
    command = { name: "clusters list", query: (values.query ?? "").replace(/^\?/, "") };
  } else if (first === "readiness") {
    if (!second) throw new UsageError("readiness needs a cluster's name: fleetskew readiness CLUSTER --target 4.19.11");
    extra(rest, "readiness CLUSTER");
    command = { name: "readiness", cluster: second, target: values.target };
  } else if (first === "rollout" && second === "plan") {
    extra(rest, "rollout plan");
    if (!values.file) throw new UsageError("rollout plan needs the rollout file: fleetskew rollout plan -f rollout.yaml [--dry-run]");
    command = { name: "rollout plan", file: values.file, dryRun: values["dry-run"] ?? false };
  } else if (first === "rollout" && second === "status") {
    const [id, ...more] = rest;
    if (!id) throw new UsageError("rollout status needs the rollout's id or number: fleetskew rollout status 12 [--watch]");
    extra(more, "rollout status ID");
    if (!/^(\d{1,9}|[0-9a-f-]{36})$/i.test(id)) throw new UsageError(`"${id.slice(0, 60)}" is not a rollout's number or id`);
    command = {
      name: "rollout status",
      id: id.toLowerCase(),
      watch: values.watch ?? false,
      intervalMs: seconds("interval", values.interval, 10_000, 3600),
    };
  } else {
    const words = [first, second].filter(Boolean).join(" ");
    throw new UsageError(`unknown command "${words.slice(0, 60)}"; see fleetskew --help`);
  }
  const allowed = new Set<OptionName>([...GLOBAL, ...OWN[command.name]]);
  for (const [name, value] of Object.entries(values))
    if (value !== undefined && !allowed.has(name as OptionName)) throw new UsageError(`--${name} is not an option of ${command.name}`);
  return { global, command };
}
