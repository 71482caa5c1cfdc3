import { beforeAll, describe, expect, it } from "vitest";
import { addUser } from "../auth/users";
import { createUser, ROLES, type Role, type UserRecord } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { request, sessionCookie } from "../testing/routes";
import { loadRoutes, pathOf, type Method, type RouteFile } from "./routes";

/**
 * Who may call what, route by route: the table below against every route file and every handler it
 * exports, for every role and for a caller without a session. A route or method without an entry
 * fails, so a new route states its access here. Roles listed may call it (admins may call
 * everything that is not public); "any": every signed-in user; "public": anyone.
 */
type Rule = "public" | "any" | readonly Role[];

const TABLE: Record<string, Partial<Record<Method, Rule>>> = {
  "app/api/health/route.ts": { GET: "public" },
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
  "app/api/v1/openapi.json/route.ts": { GET: "public" },
  "app/api/v1/rollouts/route.ts": { GET: "any", POST: ["technician", "admin"] },
  "app/api/v1/rollouts/[id]/route.ts": { GET: "any" },
  "app/api/v1/rollouts/[id]/clusters/route.ts": { GET: "any" },
  "app/api/v1/rollouts/[id]/approve/route.ts": { POST: ["approver", "admin"] },
  "app/api/v1/rollouts/[id]/pause/route.ts": { POST: ["technician", "approver", "admin"] },
  "app/api/v1/rollouts/[id]/resume/route.ts": { POST: ["approver", "admin"] },
  "app/api/v1/rollouts/[id]/abort/route.ts": { POST: ["approver", "admin"] },
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
      role === "admin"
        ? admin
        : await addUser({ username: `as-${role}`, role, password: "a password of twelve" }, { user: admin, ip: null }),
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
          const ok = allowed(rule, caller);
          const expected = ok ? "not 401/403" : caller === "anonymous" ? "401" : "403";
          const good = ok ? response.status !== 401 && response.status !== 403 : response.status === (caller === "anonymous" ? 401 : 403);
          if (!good)
            mismatches.push(`${method} ${route.file} as ${caller}: expected ${expected}, got ${response.status} ${await response.text()}`);
          else if (response.status >= 500)
            mismatches.push(`${method} ${route.file} as ${caller}: ${response.status} ${await response.text()}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });
});
