/** The process behind `npx fleetskew` (bin/fleetskew.mjs): runs cli/main.ts with this process's arguments and streams. */
import { main } from "./main";
import { runPreview } from "./preview";

const stop = new AbortController();
// Ctrl-C ends a watch between polls, without a stack trace; a second one ends the process at once.
process.once("SIGINT", () => {
  stop.abort();
  process.once("SIGINT", () => process.exit(130));
});

main(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  signal: stop.signal,
  preview: (args) => runPreview(args),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`fleetskew: unexpected error: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
