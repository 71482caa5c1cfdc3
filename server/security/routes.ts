import { readdirSync } from "node:fs";
import path from "node:path";

/**
 * Every route file of the app and the handlers it exports, found on disk, so tests that go over
 * "every route" cannot miss one added later.
 */
export const ROOT = path.resolve(__dirname, "../..");
export const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type Method = (typeof METHODS)[number];

export type RouteHandler = (request: Request, context?: { params?: Promise<Record<string, string>> }) => Promise<Response>;
export type RouteFile = { file: string; handlers: Partial<Record<Method, RouteHandler>> };

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(full);
    return entry.name === "route.ts" ? [full] : [];
  });
}

/** Route files under app/, relative to the project ("app/api/v1/users/route.ts"), sorted. */
export const routeFiles = () =>
  walk(path.join(ROOT, "app"))
    .map((f) => path.relative(ROOT, f).split(path.sep).join("/"))
    .sort();

export async function loadRoutes(): Promise<RouteFile[]> {
  const files = routeFiles();
  return Promise.all(
    files.map(async (file) => {
      const exported = (await import(path.join(ROOT, file))) as Record<string, unknown>;
      const handlers: RouteFile["handlers"] = {};
      for (const method of METHODS) if (typeof exported[method] === "function") handlers[method] = exported[method] as RouteHandler;
      return { file, handlers };
    }),
  );
}

/** Values for a route's dynamic segments that name nothing that exists. */
export const PARAM_VALUES: Record<string, string> = {
  id: "00000000-0000-4000-8000-000000000000",
  name: "no-such-cluster",
  digest: `sha256:${"0".repeat(64)}`,
};

/** The URL path and params of a route file, its dynamic segments filled with PARAM_VALUES. */
export function pathOf(file: string): { pathname: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const segments = file
    .replace(/^app/, "")
    .replace(/\/route\.ts$/, "")
    .split("/")
    .map((segment) => {
      const m = /^\[(.+)\]$/.exec(segment);
      if (!m) return segment;
      const value = PARAM_VALUES[m[1]!];
      if (!value) throw new Error(`${file}: no test value for the segment [${m[1]}]; add one to PARAM_VALUES`);
      params[m[1]!] = value;
      return encodeURIComponent(value);
    });
  return { pathname: segments.join("/") || "/", params };
}
