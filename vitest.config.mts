import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));
const testFiles = [
  "server/**/*.test.ts",
  "cli/**/*.test.ts",
  "lib/**/*.test.ts",
  "scripts/**/*.test.ts",
  "components/**/*.test.ts",
  "deploy/**/*.test.ts",
];
// Integration tests need Postgres, or start child processes and servers that take seconds each.
const integrationFiles = ["**/*.int.test.ts"];

/**
 * Two sets of tests: `unit` (npm run test:unit) needs nothing running and finishes in well under a
 * minute; `integration` (npm run test:int) runs against real Postgres. `vitest run` runs both.
 */
export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    environment: "node",
    // Integration tests start Postgres databases and child processes; two cores, so keep it modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: testFiles,
          exclude: ["**/node_modules/**", ...integrationFiles],
          // Takes the database away, so a test that needs one fails at once instead of sitting here.
          setupFiles: ["server/testing/quickSetup.ts"],
          // The files of a worker share the modules they load: loading them dominated the run (about a minute, or
          // 20 s shared). So a quick test must leave module state (configuration caches, process.env) as it found it;
          // the set passes in shuffled order (--sequence.shuffle.files).
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "integration", include: integrationFiles, exclude: ["**/node_modules/**"] },
      },
    ],
  },
});
