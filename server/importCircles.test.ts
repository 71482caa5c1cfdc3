import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * No import circles among Fleetskew's own files. A circle makes load order decide what a module
 * sees (an export still undefined while the other module loads) and shows a piece that belongs in
 * a module of its own. Type-only imports count too: they tie the two modules' designs together.
 * ESLint's import/no-cycle does the same but made `npm run lint` four times slower; reading only
 * the import lines with the TypeScript parser takes a second or two.
 */
const root = path.resolve(__dirname, "..");
const SKIP = new Set(["node_modules", ".next", ".fleetskew", ".git", "test-results", "playwright-report", "generated"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The module specifiers a file imports or re-exports from statically (dynamic import() loads later, so it cannot close a circle at load). */
function importsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  return source.statements.flatMap((s) => {
    if ((ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) && s.moduleSpecifier && ts.isStringLiteral(s.moduleSpecifier))
      return [s.moduleSpecifier.text];
    return [];
  });
}

function importGraph(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) throw new Error("tsconfig.json could not be read");
  const files = sourceFiles(root);
  const own = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      importsOf(file)
        .map((spec) => ts.resolveModuleName(spec, file, config.options, ts.sys).resolvedModule?.resolvedFileName)
        .filter((to): to is string => to !== undefined && own.has(path.resolve(to)))
        .map((to) => path.resolve(to)),
    ]),
  );
}

/** Strongly connected components with more than one file (Tarjan), each a circle or several interlocked. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(path.relative(root, w));
      } while (w !== v);
      if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/**
 * The layers every feature stands on (docs/architecture.md): pure logic, HTTP plumbing, the cluster
 * client, sealing, the store, configuration and the access check.
 */
const SHARED = ["domain", "http", "kube", "secrets", "store", "config", "auth"].map((d) => `server/${d}/`);
/**
 * What stands on them: the features, and above those the endpoint registry (server/api), the
 * processes that start everything (server/runtime), the routes and the commands.
 */
const FEATURES = ["acknowledgements", "alerts", "audit", "bundles", "clusters", "collector", "fleet", "hubs", "preview", "rollouts"];
const ABOVE = [...FEATURES.map((d) => `server/${d}/`), "server/api/", "server/runtime/", "app/", "scripts/"];
/** Tests, and what only tests run, sit above everything: they may set up a feature from any layer. */
const testOnly = (file: string) => /\.test\.tsx?$/.test(file) || file.split(path.sep).includes("testing");

/** Imports from a shared layer up into a feature or above: each one an arrow that runs back up. */
function arrowsBackUp(graph: Map<string, string[]>): string[] {
  const under = (file: string, dirs: string[]) => dirs.some((d) => path.relative(root, file).startsWith(d));
  return [...graph].flatMap(([file, to]) =>
    under(file, SHARED) && !testOnly(file)
      ? to.filter((t) => under(t, ABOVE)).map((t) => `${path.relative(root, file)} → ${path.relative(root, t)}`)
      : [],
  );
}

let graphOnce: Map<string, string[]> | undefined;
const projectGraph = () => (graphOnce ??= importGraph());

describe("imports", () => {
  it("run down only: the shared layers import no feature, nor the registry, runtime, routes or commands above them", () => {
    const graph = projectGraph();
    // The check does see an arrow back up: one added from the HTTP plumbing to a feature is named.
    const http = path.join(root, "server/http/api.ts");
    const withArrowUp = new Map(graph).set(http, [...graph.get(http)!, path.join(root, "server/fleet/fleet.ts")]);
    expect(arrowsBackUp(withArrowUp)).toEqual(["server/http/api.ts → server/fleet/fleet.ts"]);
    expect(arrowsBackUp(graph)).toEqual([]);
  });

  it("form no circle among the project's files", () => {
    const graph = projectGraph();
    // The walk has to see the project (and resolve "@/…" paths), or an empty answer would mean nothing.
    expect(graph.size).toBeGreaterThan(300);
    expect([...graph.values()].filter((to) => to.length > 0).length).toBeGreaterThan(graph.size / 2);
    const fromApp = [...graph].filter(([file]) => file.startsWith(path.join(root, "app/"))).flatMap(([, to]) => to);
    expect(fromApp.some((to) => to.startsWith(path.join(root, "server/")))).toBe(true);
    expect(circles(graph)).toEqual([]);
  });
});
