import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

/** Next's own rules (React, hooks, accessibility, TypeScript), plus the project's layering (docs/architecture.md). */
export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([
    ".next/**",
    ".fleetskew/**",
    "next-env.d.ts",
    "server/store/generated/**",
    "playwright-report/**",
    "test-results/**",
    "e2e/.artifacts/**",
  ]),
  {
    rules: {
      // `_name` marks a value left out on purpose (a destructured field dropped from a copy).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", ignoreRestSiblings: true }],
    },
  },
  {
    // Fleetskew does not turn on the React Compiler (next.config.js), so a library it would skip changes nothing.
    rules: { "react-hooks/incompatible-library": "off" },
  },
  {
    // No React runs in server/: a `use…` name there (useMigratedDatabase, a vitest helper) is not a hook.
    files: ["server/**", "e2e/**", "bench/**", "scripts/**", "cli/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  {
    // A server function over 120 lines mixes steps that deserve names of their own. The simulator plays other
    // parties' controllers, written to follow their upstream code; tests and what only tests run (server/testing:
    // a test OpenID provider set up in one place) read best as one case per function.
    files: ["server/**/*.ts"],
    ignores: ["server/simulator/**", "server/**/*.test.ts", "server/testing/**"],
    rules: { "max-lines-per-function": ["error", { max: 120, skipBlankLines: true, skipComments: true }] },
  },
  {
    // The simulator plays free-form Kubernetes JSON, and is being rewritten apart from server/domain (issue 14):
    // its findings are shown, and fixed there, rather than in two places at once.
    files: ["server/simulator/**"],
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": "warn",
      "@typescript-eslint/no-unused-expressions": "warn",
    },
  },
  {
    // Rendered manifests are free-form Kubernetes JSON that the test walks by field path.
    files: ["deploy/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // Cases transcribed from the MCO's Go tests build and walk free-form Ignition and MachineSet JSON.
    files: ["server/domain/upstream/**", "server/domain/disruption/*.test.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // next.config.js is CommonJS, as Next loads it; the standalone step loads it the same way.
    files: ["next.config.js", "scripts/standalone.ts"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // The shutdown handler is installed before the database is opened, and closes it if it was.
    files: ["scripts/start.ts"],
    rules: { "prefer-const": ["error", { ignoreReadBeforeAssign: true }] },
  },
  {
    // Components run in the browser: from the server they take the API's shapes, never its code.
    files: ["components/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(@/|(\\.\\./)+)server/(?!(\\w+/(contract|\\w+Contract)|http/endpoint)$)",
              allowTypeImports: true,
              message: "components import only types from server/, the contracts' endpoints and schemas",
            },
          ],
        },
      ],
    },
  },
  {
    // Prisma only in server/store; the Kubernetes client only in server/kube and the simulator.
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["server/store/**", "server/kube/**", "server/simulator/**", "bench/**", "scripts/**", "prisma.config.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@prisma/*", "**/generated/prisma/*"], message: "Prisma is used in server/store only" },
            { group: ["@kubernetes/client-node"], message: "the Kubernetes client is used in server/kube (and the simulator) only" },
          ],
        },
      ],
    },
  },
  {
    // server/domain is pure: no database, no clusters, no HTTP.
    files: ["server/domain/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["@prisma/*", "**/generated/prisma/*", "@kubernetes/client-node"], message: "server/domain is pure" },
            {
              group: [
                "../store/*",
                "../kube/*",
                "../http/*",
                "../clusters/*",
                "../collector/*",
                "../../store/*",
                "../../kube/*",
                "../../http/*",
              ],
              message: "server/domain is pure: it takes what it needs as arguments",
            },
          ],
        },
      ],
    },
  },

  {
    // A contract is what the browser may import from server/: zod, pure modules and other contracts, never I/O.
    // A feature's contract that grew is split into more modules named *Contract.ts, under the same rule.
    files: ["server/**/contract.ts", "server/**/*Contract.ts", "server/http/endpoint.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^\\.{1,2}/(?!(domain/|(\\w+/)?(contract|\\w+Contract)$|(http/)?endpoint$))",
              message: "a contract imports zod, server/domain and other contracts only: the browser imports it",
            },
          ],
        },
      ],
    },
  },
]);
