import { spawn, type ChildProcessByStdio } from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";

const root = path.resolve(__dirname, "../..");

/**
 * Runs one of the project's TypeScript scripts (`scripts/collector.ts`, a test's helper process) in a
 * process of its own, as `node --import tsx` does for `npm run collector`: only PATH is inherited,
 * the rest of its environment is `env`, and its output is piped for the test to read.
 */
export function startScript(
  script: string,
  env: Record<string, string> & { NODE_ENV: "production" | "test" },
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, ["--import", "tsx", path.join(root, script)], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}
