/** `npm run bench`: every benchmark, each printing its own figures (docs/benchmarks.md). */
import { spawnSync } from "node:child_process";
import path from "node:path";

// The fleet benchmark runs the collector in its own process with the heap limit `npm run collector` uses.
const benches: { file: string; flags: string[] }[] = [
  { file: "disruption.ts", flags: [] },
  { file: "simulator.ts", flags: [] },
  { file: "fleet.ts", flags: ["--expose-gc", "--max-old-space-size=768"] },
];
let failed = false;
for (const bench of benches) {
  console.log(`\n== ${bench.file}`);
  const result = spawnSync(process.execPath, [...bench.flags, "--import", "tsx", path.join(__dirname, bench.file)], { stdio: "inherit" });
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
