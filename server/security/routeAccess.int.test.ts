import { actorFor } from "../auth/actor";
import { beforeAll, describe, expect, it } from "vitest";
import { addUser } from "../auth/users";
import { createUser, ROLES, type Role, type UserRecord } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { request, sessionCookie } from "../testing/routes";
import { WORK_LIMITS, type WorkKind } from "../domain/workLimits";
import { loadRoutes, pathOf, type Method, type RouteFile } from "./routes";
import { workLimiter } from "./workLimiter";

/**
 * Who may call what, route by route: the table below against every route file and every handler it
 * exports, for every role and for a caller without a session. A route or method without an entry
 * fails, so a new route states its access here. Roles listed may call it (admins may call
 * everything that is not public); "any": every signed-in user; "public": anyone.
 */
type Rule = "public" | "any" | readonly Role[];

const TABLE: Record<string, Partial<Record<Method, Rule>>> = {
  "app/api/health/route.ts": { GET: "public" },
  // The example bundle manifest of docs/examples, offered on the bundles page: a public document.
  "app/(console)/bundles/example/route.ts": { GET: "public" },
  "app/metrics/route.ts": { GET: ["admin"] },
  "app/api/v1/session/route.ts": { POST: "public", GET: "any", DELETE: "any" },
  "app/api/v1/session/oidc/route.ts": { GET: "public" },
  "app/api/v1/session/oidc/callback/route.ts": { GET: "public" },
  "app/api/v1/acknowledgements/route.ts": { GET: "any", POST: ["technician", "admin"] },
  "app/api/v1/acknowledgements/[id]/approve/route.ts": { POST: ["approver", "admin"] },
  "app/api/v1/acknowledgements/[id]/reject/route.ts": { POST: ["approver", "admin"] },
  "app/api/v1/acknowledgements/candidates/route.ts": { GET: "any" },
  "app/api/v1/audit/route.ts": { GET: ["approver", "admin"] },
  "app/api/v1/bundle-applications/route.ts": { GET: "any", POST: ["technician", "admin"] },
  "app/api/v1/bundle-applications/[id]/route.ts": { GET: "any" },
  "app/api/v1/bundle-applications/[id]/start-upgrade/route.ts": { POST: ["technician", "admin"] },
  "app/api/v1/bundle-applications/[id]/unpin/route.ts": { POST: ["technician", "admin"] },
  "app/api/v1/bundles/route.ts": { GET: ["technician", "approver", "admin"], POST: ["technician", "admin"] },
  "app/api/v1/bundles/[digest]/precheck/route.ts": { GET: ["technician", "admin"] },
  "app/api/v1/bundles/vetted/route.ts": { GET: ["technician", "approver", "admin"], POST: ["approver", "admin"] },
  "app/api/v1/clusters/route.ts": { GET: "any", POST: ["admin"] },
  "app/api/v1/clusters/[name]/route.ts": { GET: "any", PATCH: ["admin"], DELETE: ["admin"] },
  "app/api/v1/clusters/[name]/preview/route.ts": { POST: "any" },
  "app/api/v1/clusters/[name]/readiness/route.ts": { GET: "any" },
  "app/api/v1/clusters/[name]/test/route.ts": { POST: ["admin"] },
  "app/api/v1/clusters/[name]/timeline/route.ts": { GET: "any" },
  "app/api/v1/clusters/[name]/rollouts/route.ts": { GET: "any" },
  "app/api/v1/clusters/import/route.ts": { POST: ["admin"] },
  "app/api/v1/connection-tests/route.ts": { POST: ["admin"] },
  "app/api/v1/alerts/route.ts": { GET: "any" },
  "app/api/v1/fleet/readiness/route.ts": { GET: "any" },
  "app/api/v1/fleet/summary/route.ts": { GET: "any" },
  "app/api/v1/fleet/clusters.csv/route.ts": { GET: "any" },
  "app/api/v1/fleet/timeline/route.ts": { GET: "any" },
  "app/api/v1/hubs/route.ts": { GET: "any", POST: ["admin"] },
  "app/api/v1/hubs/[name]/route.ts": { GET: "any", DELETE: ["admin"] },
  "app/api/v1/hubs/[name]/resync/route.ts": { POST: ["admin"] },
  "app/api/v1/kubeconfig-contexts/route.ts": { POST: ["admin"] },
  "app/api/v1/preview/route.ts": { POST: "any" },
  "app/api/v1/registration-jobs/route.ts": { POST: ["admin"] },
  "app/api/v1/registration-jobs/[id]/route.ts": { GET: ["admin"] },
  "app/api/v1/registration-jobs/preview/route.ts": { POST: ["admin"] },
  "app/api/v1/settings/oidc/route.ts": { PUT: ["admin"], DELETE: ["admin"] },
  "app/api/v1/settings/sign-in/route.ts": { GET: ["admin"], PUT: ["admin"] },
  "app/api/v1/settings/skew-limits/route.ts": { GET: "any", PUT: ["admin"] },
  "app/api/v1/sign-in-locks/route.ts": { GET: ["admin"], DELETE: ["admin"] },
  "app/api/v1/users/route.ts": { GET: ["admin"], POST: ["admin"] },
  "app/api/v1/users/[id]/route.ts": { PATCH: ["admin"] },
  "app/api/v1/users/[id]/grants/route.ts": { PUT: ["admin"] },
  "app/api/v1/openapi.json/route.ts": { GET: "public" },
  "app/api/v1/tokens/route.ts": { GET: "any", POST: "any" },
  "app/api/v1/tokens/[id]/route.ts": { DELETE: "any" },
  "app/api/v1/service-accounts/route.ts": { GET: ["admin"], POST: ["admin"] },
  "app/api/v1/service-accounts/[id]/route.ts": { DELETE: ["admin"] },
  "app/api/v1/service-accounts/[id]/tokens/route.ts": { POST: ["admin"] },
  "app/api/v1/rollouts/route.ts": { GET: "any", POST: ["technician", "admin"] },
  "app/api/v1/rollouts/[id]/route.ts": { GET: "any" },
  "app/api/v1/rollouts/[id]/clusters/route.ts": { GET: "any", POST: ["approver", "admin"] },
  "app/api/v1/rollouts/[id]/release/route.ts": { POST: ["approver", "admin"] },
  "app/api/v1/rollouts/[id]/approve/route.ts": { POST: ["approver", "admin"] },
  "app/api/v1/rollouts/[id]/pause/route.ts": { POST: ["technician", "approver", "admin"] },
  "app/api/v1/rollouts/[id]/resume/route.ts": { POST: ["approver", "admin"] },
  "app/api/v1/rollouts/[id]/abort/route.ts": { POST: ["approver", "admin"] },
};

/**
 * Expensive work, limited per person and in total (server/domain/workLimits.ts): these routes answer
 * 429 with Retry-After past the limit; no other route is limited. A query a route needs to be
 * expensive at all (the audit log's CSV) is given with it.
 */
const LIMITED: Record<string, Partial<Record<Method, { kind: WorkKind; query?: string }>>> = {
  "app/api/v1/preview/route.ts": { POST: { kind: "preview" } },
  "app/api/v1/clusters/[name]/preview/route.ts": { POST: { kind: "preview" } },
  "app/api/v1/clusters/[name]/test/route.ts": { POST: { kind: "connection-test" } },
  "app/api/v1/connection-tests/route.ts": { POST: { kind: "connection-test" } },
  "app/api/v1/bundles/[digest]/precheck/route.ts": { GET: { kind: "precheck", query: "?cluster=prod-east" } },
  "app/api/v1/fleet/clusters.csv/route.ts": { GET: { kind: "export" } },
  "app/api/v1/audit/route.ts": { GET: { kind: "export", query: "?format=csv" } },
  "app/api/v1/clusters/import/route.ts": { POST: { kind: "bulk" } },
  "app/api/v1/registration-jobs/route.ts": { POST: { kind: "bulk" } },
  "app/api/v1/registration-jobs/preview/route.ts": { POST: { kind: "bulk" } },
  "app/api/v1/rollouts/route.ts": { POST: { kind: "rollout-plan" } },
};

useMigratedDatabase();

type Caller = "anonymous" | Role;
const CALLERS: Caller[] = ["anonymous", ...ROLES];
const users = new Map<Role, UserRecord>();
let routes: RouteFile[];

beforeAll(async () => {
  routes = await loadRoutes();
  const admin = await createUser({ username: "root", role: "admin", passwordHash: "scrypt$unused" }, { actor: null });
  for (const role of ROLES)
    users.set(
      role,
      role === "admin" ? admin : await addUser({ username: `as-${role}`, role, password: "a password of twelve" }, actorFor(admin, null)),
    );
});

const allowed = (rule: Rule, caller: Caller) =>
  rule === "public" || (caller !== "anonymous" && (rule === "any" || caller === "admin" || rule.includes(caller)));

/** A request that passes the origin check and carries a session for `caller` (a fresh one: DELETE /session ends it). */
async function requestAs(caller: Caller, method: Method, pathname: string): Promise<Request> {
  const cookie = caller === "anonymous" ? undefined : await sessionCookie(users.get(caller)!);
  const withBody = !["GET", "HEAD", "OPTIONS"].includes(method);
  return request(pathname, { method, cookie, body: withBody ? "{}" : undefined });
}

describe("route × role", () => {
  it("has an entry for every route file and every method it exports, and none for routes that are gone", () => {
    const found = Object.fromEntries(routes.map((r) => [r.file, Object.keys(r.handlers).sort()]));
    const listed = Object.fromEntries(Object.entries(TABLE).map(([file, methods]) => [file, Object.keys(methods).sort()]));
    expect(found).toEqual(listed);
  });

  it("answers 401 to a caller without a session, 403 to a role not listed, and lets the listed ones through", async () => {
    const mismatches: string[] = [];
    for (const route of routes) {
      const { pathname, params } = pathOf(route.file);
      for (const [method, handler] of Object.entries(route.handlers) as [Method, NonNullable<RouteFile["handlers"][Method]>][]) {
        const rule = TABLE[route.file]?.[method];
        if (!rule) continue; // the first test names it
        for (const caller of CALLERS) {
          const response = await handler(await requestAs(caller, method, pathname), { params: Promise.resolve(params) });
          // Read to its end: a streamed answer holds its work slot until it has been sent.
          const text = await response.text();
          const ok = allowed(rule, caller);
          const expected = ok ? "not 401/403" : caller === "anonymous" ? "401" : "403";
          const good = ok ? response.status !== 401 && response.status !== 403 : response.status === (caller === "anonymous" ? 401 : 403);
          if (!good) mismatches.push(`${method} ${route.file} as ${caller}: expected ${expected}, got ${response.status} ${text}`);
          else if (response.status >= 500) mismatches.push(`${method} ${route.file} as ${caller}: ${response.status} ${text}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});

describe("route × limits", () => {
  /** Calls a route as `caller` (a role allowed to call it); the status, Retry-After and body. */
  async function call(route: RouteFile, method: Method, caller: Role, query = "") {
    const { pathname, params } = pathOf(route.file);
    const response = await route.handlers[method]!(await requestAs(caller, method, pathname + query), { params: Promise.resolve(params) });
    const text = await response.text();
    return { status: response.status, retryAfter: response.headers.get("retry-after"), text };
  }

  /** Takes `count` slots of `kind` for `person`, as requests running now would; gives them back after `run`. */
  async function whileRunning<T>(kind: WorkKind, holders: string[], run: () => Promise<T>): Promise<T> {
    const releases: (() => void)[] = [];
    for (const person of holders) releases.push(await workLimiter().acquire(kind, person));
    try {
      return await run();
    } finally {
      releases.forEach((release) => release());
    }
  }

  it("lists every expensive endpoint, and only those", () => {
    const declared: Record<string, Record<string, string>> = {};
    for (const route of routes)
      for (const [method, handler] of Object.entries(route.handlers)) {
        const work = (handler as { endpoint?: { work?: { kind: WorkKind } } }).endpoint?.work;
        if (work) (declared[route.file] ??= {})[method] = work.kind;
      }
    const listed = Object.fromEntries(
      Object.entries(LIMITED).map(([file, methods]) => [file, Object.fromEntries(Object.entries(methods).map(([m, l]) => [m, l!.kind]))]),
    );
    expect(declared).toEqual(listed);
  });

  it("answers 429 with Retry-After and a plain message past a person's limit, and past the total; lets others and later requests through", async () => {
    const problems: string[] = [];
    const byFile = new Map(routes.map((r) => [r.file, r]));
    for (const [file, methods] of Object.entries(LIMITED)) {
      for (const [method, limited] of Object.entries(methods) as [Method, { kind: WorkKind; query?: string }][]) {
        const route = byFile.get(file)!;
        const where = `${method} ${file}`;
        const limit = WORK_LIMITS[limited.kind];
        const admin = users.get("admin")!.id;
        // The person's own limit: their running requests fill it; another person is still let through.
        await whileRunning(limited.kind, Array(limit.perPerson).fill(admin), async () => {
          const refused = await call(route, method, "admin", limited.query);
          if (refused.status !== 429) problems.push(`${where}: ${refused.status} with the person's limit reached`);
          else {
            if (!/^[1-9]\d*$/.test(refused.retryAfter ?? "")) problems.push(`${where}: Retry-After ${refused.retryAfter}`);
            if (!/^You already have .* running.*try again in about \d+ s$/.test(JSON.parse(refused.text).error))
              problems.push(`${where}: ${refused.text}`);
          }
          const access = (route.handlers[method] as { endpoint?: { access: unknown } }).endpoint?.access;
          if (access === "any" && (await call(route, method, "viewer", limited.query)).status === 429)
            problems.push(`${where}: another person refused`);
        });
        // Everyone together: other people's requests fill the total.
        const others = Array.from({ length: limit.total }, (_, i) => `someone-else-${i}`);
        await whileRunning(limited.kind, others, async () => {
          const refused = await call(route, method, "admin", limited.query);
          if (refused.status !== 429 || !/busy/.test(refused.text))
            problems.push(`${where}: ${refused.status} ${refused.text} with the total reached`);
        });
        // Nothing left held: the route's own slots are given back whatever it answered.
        const after = await call(route, method, "admin", limited.query);
        if (after.status === 429) problems.push(`${where}: still 429 once the others finished`);
        if (workLimiter().runningNow(limited.kind) !== 0)
          problems.push(`${where}: left ${workLimiter().runningNow(limited.kind)} slot(s) held`);
      }
    }
    expect(problems).toEqual([]);
  });
});
