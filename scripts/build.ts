/**
 * `npm run build`: the production build, stamped with its sources so `npm start` knows it is
 * current, and its standalone copy for the container image (.next/standalone, see docs/deploy.md).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { BUILD_STAMP_FILE, sourceFingerprint } from "../server/runtime/buildFreshness";
import { writeFileSync } from "node:fs";
import { completeStandalone } from "./standalone";

const root = path.resolve(__dirname, "..");

async function main() {
  // Fingerprint before building: an edit made during the build must make the next start rebuild.
  const fingerprint = await sourceFingerprint(root);
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: "inherit",
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const standalone = await completeStandalone(root);
  console.log(`standalone build: ${standalone.bundles.join(", ")} (+${standalone.packageFiles} package files)`);
  writeFileSync(path.join(root, ".next", BUILD_STAMP_FILE), fingerprint);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
