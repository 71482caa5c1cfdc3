import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * Each client that keeps watches holds its cluster's connection open between sweeps: a process
 * keeps at most half its open-file limit of them (less room for the database and the web server).
 */
describe("how many clients of one process may keep watches", () => {
  const limitUnder = (files: number) => {
    const script = `console.log(require("./server/kube/client.ts").MAX_WATCHING_CLIENTS)`;
    const run = spawnSync("bash", ["-c", `ulimit -n ${files} && exec "${process.execPath}" --import tsx -e '${script}'`], {
      cwd: path.resolve(__dirname, "../.."),
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    return Number(run.stdout.trim().split("\n").at(-1));
  };

  it("is half the open-file limit less 256", () => {
    expect(limitUnder(1024)).toBe(256);
    expect(limitUnder(4096)).toBe(1792);
  });
});
