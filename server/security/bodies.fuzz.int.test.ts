import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, type UserRecord } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { request as routeRequest, sessionCookie } from "../testing/routes";
import { loadRoutes, pathOf, type Method, type RouteFile } from "./routes";

/**
 * Every route that takes a body (and every query string), fuzzed through its real handler as an
 * admin, against real Postgres: whatever arrives, the answer is never a 500 and comes in bounded
 * time. Routes are found on disk, so a new one is fuzzed without being listed.
 */
useMigratedDatabase();

const RUNS_PER_ROUTE = Number(process.env.FLEETSKEW_FUZZ_RUNS ?? 12);
const BUDGET_MS = 5_000;
let admin: UserRecord;
let routes: RouteFile[];

beforeAll(async () => {
  routes = await loadRoutes();
  admin = await createUser({ username: "fuzzer", role: "admin", passwordHash: "scrypt$unused" }, { actor: null });
});

/** Keys the request schemas use, so random bodies get past the outer shape now and then. */
const KEYS = [
  "username",
  "password",
  "role",
  "displayName",
  "disabled",
  "name",
  "labels",
  "source",
  "type",
  "kubeconfig",
  "context",
  "contexts",
  "apiUrl",
  "token",
  "caBundle",
  "insecureSkipTlsVerify",
  "machineConfig",
  "clusters",
  "entries",
  "fromRelease",
  "comment",
  "digest",
  "note",
  "bundleDigest",
  "cluster",
  "confirmedWarnings",
  "override",
  "reason",
  "mode",
  "ocpVersion",
  "rhcosVersion",
  "evidence",
  "machineSets",
];
const shaped = fc.dictionary(
  fc.constantFrom(...KEYS),
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(fc.constantFrom(...KEYS), fc.jsonValue({ maxDepth: 1 }))),
);
const body = fc.oneof(
  fc.json({ maxDepth: 3 }),
  shaped.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 100 }),
  fc.constantFrom("", "{", "null", '{"__proto__":{"x":1}}', '"\\u0000"', "[".repeat(5000)),
);
const query = fc.dictionary(
  fc.constantFrom("target", "from", "to", "cluster", "status", "limit", "before", "format", "username", "address", "outcome", "x"),
  fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom("4.22", "4.22.3", "2026-01-01", "1970-01-01T00:00:00Z", "9999-99-99", "-1", "csv"),
  ),
);

async function call(
  handler: NonNullable<RouteFile["handlers"][Method]>,
  method: Method,
  file: string,
  init: { body?: string; query?: Record<string, string> },
) {
  const { pathname, params } = pathOf(file);
  const search = init.query ? `?${new URLSearchParams(init.query)}` : "";
  const request = routeRequest(`${pathname}${search}`, {
    method,
    cookie: await sessionCookie(admin),
    headers: { "content-type": "application/json" },
    body: init.body,
  });
  const started = Date.now();
  const response = await Promise.race([
    handler(request, { params: Promise.resolve(params) }),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${method} ${file} took longer than ${BUDGET_MS} ms`)), BUDGET_MS)),
  ]);
  return { status: response.status, text: await response.text(), ms: Date.now() - started };
}

describe("every route's body and query, fuzzed", () => {
  it("never answers 500 to any body", async () => {
    const withBody = routes.flatMap((r) =>
      (Object.entries(r.handlers) as [Method, NonNullable<RouteFile["handlers"][Method]>][])
        .filter(([m]) => ["POST", "PUT", "PATCH"].includes(m))
        .map(([method, handler]) => ({ file: r.file, method, handler })),
    );
    expect(withBody.length).toBeGreaterThan(15);
    for (const route of withBody) {
      await fc.assert(
        fc.asyncProperty(body, async (text) => {
          const { status, text: answer } = await call(route.handler, route.method, route.file, { body: text });
          expect(status, `${route.method} ${route.file} with ${text.slice(0, 200)}: ${answer}`).toBeLessThan(500);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    }
  });

  it("never answers 500 to any query string", async () => {
    const reads = routes.flatMap((r) => (r.handlers.GET ? [{ file: r.file, handler: r.handlers.GET }] : []));
    for (const route of reads) {
      await fc.assert(
        fc.asyncProperty(query, async (q) => {
          const { status, text } = await call(route.handler, "GET", route.file, { query: q });
          expect(status, `GET ${route.file}?${new URLSearchParams(q)}: ${text}`).toBeLessThan(500);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
    }
  });
});
