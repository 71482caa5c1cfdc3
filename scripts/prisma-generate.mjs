// Generates the Prisma client into server/store/generated without downloading anything.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? path.join(root, "scripts/no-schema-engine.sh"),
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  PRISMA_SKIP_POSTINSTALL_GENERATE: "1",
  CHECKPOINT_DISABLE: "1",
};
const result = spawnSync(process.execPath, [path.join(root, "node_modules/prisma/build/index.js"), "generate"], {
  cwd: root,
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
