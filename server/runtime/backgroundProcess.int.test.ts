/** The background process `npm start` supervises (./backgroundProcess.ts), as a real child process. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { superviseBackgroundProcess } from "./backgroundProcess";

const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-background-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readJson = (file: string): { execArgv: string[] } | undefined => {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
};

describe("the supervised background process", () => {
  it("runs with its own Node options after this process's, and stops when asked", async () => {
    const script = path.join(dir, "child.cjs");
    const out = path.join(dir, "seen.json");
    writeFileSync(
      script,
      `require("node:fs").writeFileSync(process.env.OUT, JSON.stringify({ execArgv: process.execArgv }));
       setInterval(() => {}, 1000);`,
    );
    const logged: string[] = [];
    const background = superviseBackgroundProcess({
      script,
      nodeOptions: ["--max-semi-space-size=32"],
      env: { ...process.env, OUT: out },
      log: (line) => logged.push(line),
    });
    let pid: number | undefined;
    try {
      await expect.poll(() => readJson(out)).toBeDefined();
      expect(readJson(out)!.execArgv).toEqual([...process.execArgv, "--max-semi-space-size=32"]);
      pid = background.pid();
      expect(pid).toBeGreaterThan(0);
    } finally {
      await background.stop();
    }
    expect(() => process.kill(pid!, 0)).toThrow();
    // Stopped when asked, not restarted as after a crash.
    expect(logged).toEqual([]);
  });
});
