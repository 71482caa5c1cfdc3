import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The simulator is the independent party Fleetskew's predictions are checked against, so nothing it
 * runs may come from server/domain (docs/simulator.md). Every non-test module under server/simulator
 * is followed through its relative imports (type-only imports too), and none may reach server/domain.
 */
const ROOT = path.resolve(__dirname, "..", "..");
const SIMULATOR = path.join(ROOT, "server", "simulator");
const DOMAIN = path.join(ROOT, "server", "domain") + path.sep;

const isTest = (file: string) => /\.(test|int\.test|property\.test)\.ts$/.test(file);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith(".ts") && !isTest(full) ? [full] : [];
  });
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g;

function resolve(from: string, specifier: string): string | null {
  if (!specifier.startsWith(".") && !specifier.startsWith("@/")) return null; // a package
  const base = specifier.startsWith("@/") ? path.join(ROOT, specifier.slice(2)) : path.resolve(path.dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")])
    if (candidate.endsWith(".ts") || candidate.endsWith(".tsx"))
      try {
        if (statSync(candidate).isFile()) return candidate;
      } catch {
        /* try the next form */
      }
  return null;
}

/** The chain of imports from `start` to a server/domain module, or null when there is none. */
function pathToDomain(start: string): string[] | null {
  const seen = new Set<string>();
  const queue: string[][] = [[start]];
  while (queue.length) {
    const chain = queue.shift()!;
    const file = chain.at(-1)!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (file.startsWith(DOMAIN)) return chain;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const next = resolve(file, m[1] ?? m[2] ?? m[3]!);
      if (next && !seen.has(next)) queue.push([...chain, next]);
    }
  }
  return null;
}

describe("the simulator is independent of Fleetskew's domain code", () => {
  const files = sources(SIMULATOR);

  it("has modules to check, including the simulated MCO", () => {
    expect(files.some((f) => f.endsWith(path.join("mco", "bootImageController.ts")))).toBe(true);
    expect(files.length).toBeGreaterThan(20);
  });

  it("no non-test module under server/simulator imports server/domain, directly or through another module", () => {
    const offenders = files
      .map((f) => pathToDomain(f))
      .filter((chain): chain is string[] => chain !== null)
      .map((chain) => chain.map((f) => path.relative(ROOT, f)).join(" → "));
    expect(offenders).toEqual([]);
  });

  it("would notice one: the check finds a domain import where there is one", () => {
    // The simulator's own tests compare predictions with it, so they do import the domain.
    const test = path.join(SIMULATOR, "reconciler.int.test.ts");
    expect(pathToDomain(test)?.at(-1)).toMatch(/server[\\/]domain[\\/]/);
  });
});
