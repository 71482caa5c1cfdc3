import { readdirSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import type { RouteHandler } from "../http/api";
import { allEndpoints } from "./endpoints";
import { openApiDocument } from "./openapiDocument";

const ROOT = path.resolve(__dirname, "../..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/** app/api/v1/clusters/[name]/route.ts → /api/v1/clusters/{name} */
function routePaths(dir = path.join(ROOT, "app/api")): { file: string; path: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routePaths(full);
    if (entry.name !== "route.ts") return [];
    const relative = path.relative(path.join(ROOT, "app"), path.dirname(full));
    return [
      {
        file: full,
        path:
          "/" +
          relative
            .split(path.sep)
            .map((s) => s.replace(/^\[(\w+)\]$/, "{$1}"))
            .join("/"),
      },
    ];
  });
}

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument() as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    // The validator does refuse a broken document: an answer without its description.
    const broken = structuredClone(openApiDocument()) as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>>;
    };
    delete broken.paths["/api/health"]!.get!.responses["200"]!.description;
    expect((await new Validator().validate(broken as unknown as Parameters<Validator["validate"]>[0])).valid).toBe(false);
  });

  it("lists every route under app/api with the endpoint its handler is bound to, and nothing else", async () => {
    const routes = routePaths();
    const unbound: string[] = [];
    const misplaced: string[] = [];
    const served = new Set<string>();
    for (const route of routes) {
      const routeModule = (await import(route.file)) as Partial<Record<(typeof METHODS)[number], RouteHandler>>;
      for (const method of METHODS) {
        const handler = routeModule[method];
        if (!handler) continue;
        const endpoint = handler.endpoint;
        if (!endpoint) unbound.push(`${method} ${route.path}`);
        else if (endpoint.method !== method || endpoint.path !== route.path)
          misplaced.push(`${method} ${route.path} is bound to ${endpoint.method} ${endpoint.path}`);
        else served.add(`${method} ${route.path}`);
      }
    }
    expect(unbound).toEqual([]);
    expect(misplaced).toEqual([]);
    const declared = allEndpoints.map((e) => `${e.method} ${e.path}`);
    expect(declared.filter((e) => !served.has(e))).toEqual([]);
    expect([...served].filter((e) => !declared.includes(e))).toEqual([]);
    const documented = Object.entries(openApiDocument().paths ?? {}).flatMap(([p, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual([...served].sort());
  }, 120_000);

  it("says who may call each endpoint", () => {
    const users = openApiDocument().paths?.["/api/v1/users"] as Record<string, { "x-roles": string[]; description: string }>;
    expect(users.get!["x-roles"]).toEqual(["admin"]);
    expect(users.post!.description).toMatch(/Roles: admin/);
  });
});
