/** `npm run bench`: every benchmark, each printing its own figures. */
import { spawnSync } from "node:child_process";
import path from "node:path";

const benches = ["disruption.ts", "simulator.ts"];
let failed = false;
for (const bench of benches) {
  console.log(`\n== ${bench}`);
  const result = spawnSync(process.execPath, [path.join(__dirname, "../node_modules/tsx/dist/cli.mjs"), path.join(__dirname, bench)], {
    stdio: "inherit",
  });
  failed ||= result.status !== 0;
}
process.exit(failed ? 1 : 0);
