import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Facts the docs state that the code decides, checked so that they cannot drift apart unnoticed. */
const root = path.resolve(__dirname, "..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

function codeFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|js|mjs)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)))
    .filter((f) => !f.split(path.sep).includes("generated"));
}

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/** The environment variables a file reads: `process.env.X`, `process.env["X"]`, `env.X`, and the keys of env.ts's schema. */
function variablesReadBy(file: string): string[] {
  const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  const isEnv = (e: ts.Expression) => e.getText(source) === "process.env" || (ts.isIdentifier(e) && e.text === "env");
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && isEnv(node.expression) && ENV_NAME.test(node.name.text)) names.push(node.name.text);
    if (ts.isElementAccessExpression(node) && isEnv(node.expression) && ts.isStringLiteral(node.argumentExpression))
      names.push(node.argumentExpression.text);
    // server/config/env.ts checks the whole environment against one zod object: its keys are what it reads.
    if (ts.isVariableDeclaration(node) && node.name.getText(source) === "EnvSchema" && node.initializer) {
      const schema = node.initializer;
      if (ts.isCallExpression(schema) && schema.arguments[0] && ts.isObjectLiteralExpression(schema.arguments[0]))
        for (const p of schema.arguments[0].properties) if (p.name && ts.isIdentifier(p.name)) names.push(p.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names.filter((n) => ENV_NAME.test(n));
}

/**
 * Variables the code reads that are not configuration, so not in README's table; each says where it
 * comes from. (Settings only tests read, such as FLEETSKEW_FUZZ_RUNS, are in docs/development.md.)
 */
const NOT_CONFIGURATION: Record<string, string> = {
  INIT_CWD: "npm's: the directory `npm run preview` was started from",
  NEXT_RUNTIME: "set by Next.js in instrumentation.ts",
  KUBERNETES_SERVICE_HOST: "set by Kubernetes in every pod (README: FLEETSKEW_OPENSHIFT_API_URL's default)",
  KUBERNETES_SERVICE_PORT: "set by Kubernetes in every pod (README: FLEETSKEW_OPENSHIFT_API_URL's default)",
  PRISMA_SCHEMA_ENGINE_BINARY: "set by scripts/prisma-generate.mjs for Prisma's CLI (docs/development.md)",
  FLEETSKEW_DATABASE_MODE: "set by npm start for its own process once it has opened the database",
  FLEETSKEW_STANDALONE_BUILD: "compiled into the standalone build's scripts by scripts/standalone.ts",
  FLEETSKEW_QUICK_TESTS: "set by the quick test set's setup (server/testing/quickSetup.ts)",
  FLEETSKEW_TEST_CLAIM_LEASE_MS:
    "set by the runner test for the rollout runner processes it starts (server/testing/rolloutRunnerProcess.ts), to take over a dead one's claims sooner",
  PATH: "the shell's: passed on to the processes the tests start (server/testing/scriptProcess.ts)",
  FLEETSKEW_TEST_HOLD_KIND:
    "set by the shared work limits test for the second process it starts (server/testing/workSlotHolder.ts): the kind of work it holds",
  FLEETSKEW_TEST_HOLD_PEOPLE: "set by the same test: the people it holds that work for",
  FLEETSKEW_URL: "read by the command line, not the console: the console's address (docs/cli.md)",
  FLEETSKEW_TOKEN: "read by the command line, not the console: the API token it sends (docs/cli.md)",
  FLEETSKEW_SESSION: "read by the command line, not the console: a session cookie's value, for local development (docs/cli.md)",
  NODE_ENV:
    "Node.js and Next.js: production in npm start and the browser tests; answers are checked against their schemas unless it is production (FLEETSKEW_CHECK_ANSWERS)",
};

function readmeVariables(): string[] {
  const readme = read("README.md");
  const table = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("\n## ", readme.indexOf("## Configuration") + 1));
  return [...table.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!);
}

describe("README's configuration table", () => {
  const files = [
    ...["server", "scripts", "app", "cli"].flatMap(codeFiles),
    "instrumentation.ts",
    "next.config.js",
    "prisma.config.ts",
  ].filter((f) => existsSync(path.join(root, f)));
  const readByCode = new Set(files.flatMap(variablesReadBy));
  const documented = readmeVariables();

  it("lists every environment variable the code reads", () => {
    // The scan has to find what env.ts and start.ts read, or an empty difference would mean nothing.
    expect([...readByCode]).toEqual(expect.arrayContaining(["DATABASE_URL", "PORT", "FLEETSKEW_SECRET_KEY", "FLEETSKEW_BACKGROUND"]));
    const missing = [...readByCode].filter((name) => !documented.includes(name) && !(name in NOT_CONFIGURATION));
    expect(missing, "read by the code but not in README's configuration table").toEqual([]);
  });

  it("lists only variables the code reads, once each", () => {
    expect(documented.length).toBeGreaterThan(30);
    expect(documented.filter((name) => !readByCode.has(name))).toEqual([]);
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([]);
  });

  it("keeps the exceptions honest: each is read by the code and not in the table", () => {
    for (const name of Object.keys(NOT_CONFIGURATION)) {
      expect(readByCode.has(name), `${name} is no longer read: drop it from the exceptions`).toBe(true);
      expect(documented).not.toContain(name);
    }
  });
});

describe("the migration count", () => {
  // README shows start-up output without a count; a number written anywhere must still be right.
  it("is stated nowhere in README or docs/ but as many as prisma/migrations holds", () => {
    const count = readdirSync(path.join(root, "prisma/migrations"), { withFileTypes: true }).filter(
      (e) => e.isDirectory() && existsSync(path.join(root, "prisma/migrations", e.name, "migration.sql")),
    ).length;
    expect(count).toBeGreaterThan(10);
    const docs = [
      "README.md",
      ...readdirSync(path.join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
    ];
    for (const file of docs) {
      const text = read(file);
      for (const m of text.matchAll(/\b(\d+) migrations\b|"migrations":\s*(\d+)/g))
        expect(Number(m[1] ?? m[2]), `${file} says ${m[0]}`).toBe(count);
    }
  });
});
