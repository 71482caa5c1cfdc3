import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.dirname(fileURLToPath(import.meta.url)) } },
  test: {
    include: ["server/**/*.test.ts", "scripts/**/*.test.ts", "components/**/*.test.ts", "deploy/**/*.test.ts"],
    environment: "node",
    // Integration tests start Postgres databases and child processes; two cores, so keep it modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
