import { describe, expect, it } from "vitest";
import { GET as health } from "@/app/api/health/route";
import { DELETE as logout, GET as whoami, POST as loginRoute } from "@/app/api/v1/session/route";
import { GET as auditRoute } from "@/app/api/v1/audit/route";
import { GET as getLimits, PUT as putLimits } from "@/app/api/v1/settings/skew-limits/route";
import { PATCH as patchUser } from "@/app/api/v1/users/[id]/route";
import { GET as listUsersRoute, POST as createUserRoute } from "@/app/api/v1/users/route";
import { ensureInitialAccounts } from "../auth/bootstrap";
import { listAudit } from "../store/audit";
import { projectMigrations, useMigratedDatabase } from "../testing/database";
import { ORIGIN, request as routeRequest, type RequestInit } from "../testing/routes";

/**
 * The route handlers themselves, given real Requests, against real Postgres: what the browser and
 * scripts get back over HTTP, minus the socket.
 */
useMigratedDatabase();

const ADMIN_PASSWORD = "admin password for tests";

/** Requests as scripts send them: no Origin header unless a test sets one. */
const request = (path: string, init: RequestInit = {}) => routeRequest(path, { origin: null, ...init });

/** Signs in, and checks the session cookie's attributes over plain http. */
async function signIn(username: string, password: string): Promise<string> {
  const response = await loginRoute(request("/api/v1/session", { method: "POST", body: { username, password } }));
  expect(response.status).toBe(200);
  const setCookie = response.headers.get("set-cookie")!;
  expect(setCookie).toMatch(/^fleetskew_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Expires=/);
  expect(setCookie).not.toMatch(/Secure/);
  return setCookie.split(";")[0]!;
}

const params = (id: string) => ({ params: Promise.resolve({ id }) });

describe("API access", () => {
  it("reports health with the migration count", async () => {
    const response = await health(new Request("http://127.0.0.1/api/health"));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", database: "postgres", migrations: projectMigrations().length });
  });

  it("answers 401 without a session and 403 for the wrong role", async () => {
    await ensureInitialAccounts({ dataDir: "/nonexistent-not-written", adminPassword: ADMIN_PASSWORD, demo: false });
    const anonymous = await listUsersRoute(request("/api/v1/users"));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: "Sign in first" });

    const admin = await signIn("admin", ADMIN_PASSWORD);
    const created = await createUserRoute(
      request("/api/v1/users", {
        method: "POST",
        cookie: admin,
        headers: { origin: ORIGIN },
        body: { username: "tech1", role: "technician", password: "technician password" },
      }),
    );
    expect(created.status).toBe(201);

    const tech = await signIn("tech1", "technician password");
    const refused = await listUsersRoute(request("/api/v1/users", { cookie: tech }));
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe("This needs the admin role; tech1 holds technician");

    const allowed = await listUsersRoute(request("/api/v1/users", { cookie: admin }));
    expect(allowed.status).toBe(200);
    expect((await allowed.json()).users.map((u: { username: string }) => u.username)).toEqual(["admin", "tech1"]);
    expect(JSON.stringify(await (await listUsersRoute(request("/api/v1/users", { cookie: admin }))).json())).not.toMatch(
      /passwordHash|scrypt/,
    );
  });

  it("refuses a state-changing request from a foreign Origin, and changes nothing", async () => {
    const admin = await signIn("admin", ADMIN_PASSWORD);
    const before = (await listAudit()).length;
    const response = await createUserRoute(
      request("/api/v1/users", {
        method: "POST",
        cookie: admin,
        headers: { origin: "https://attacker.example" },
        body: { username: "planted", role: "admin", password: "planted password" },
      }),
    );
    expect(response.status).toBe(403);
    expect((await response.json()).error).toMatch(/Cross-origin request refused/);
    const users = await (await listUsersRoute(request("/api/v1/users", { cookie: admin }))).json();
    expect(users.users.map((u: { username: string }) => u.username)).not.toContain("planted");
    expect((await listAudit()).length).toBe(before);
  });

  it("explains bad input with a 4xx and writes nothing", async () => {
    const admin = await signIn("admin", ADMIN_PASSWORD);
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      createUserRoute(request("/api/v1/users", { method: "POST", cookie: admin, body, headers }));
    const notJson = await post("{username:", {});
    expect([notJson.status, (await notJson.json()).error]).toEqual([400, "Request body is not valid JSON"]);
    const wrongType = await post("username=x", { "content-type": "application/x-www-form-urlencoded" });
    expect(wrongType.status).toBe(415);
    const badRole = await post({ username: "someone", role: "root", password: "long enough password" });
    expect([badRole.status, (await badRole.json()).error]).toEqual([400, "Role must be one of viewer, technician, approver, admin"]);
    const shortPassword = await post({ username: "someone", role: "viewer", password: "short" });
    expect((await shortPassword.json()).error).toBe("Password must be at least 12 characters");
    const huge = await post({ username: "someone", role: "viewer", password: "x".repeat(70_000) });
    expect(huge.status).toBe(413);
    const duplicate = await post({ username: "tech1", role: "viewer", password: "long enough password" });
    expect([duplicate.status, (await duplicate.json()).error]).toEqual([409, "a user named tech1 already exists"]);
    const unknown = await patchUser(
      request("/api/v1/users/x", { method: "PATCH", cookie: admin, body: { role: "viewer" } }),
      params("not-a-uuid"),
    );
    expect(unknown.status).toBe(404);
    const nothing = await patchUser(
      request("/api/v1/users/x", { method: "PATCH", cookie: admin, body: {} }),
      params("00000000-0000-4000-8000-000000000000"),
    );
    expect([nothing.status, (await nothing.json()).error]).toEqual([400, "Nothing to change"]);
  });

  it("refuses NUL characters, impossible dates and out-of-range ids with a 400, and writes nothing", async () => {
    const admin = await signIn("admin", ADMIN_PASSWORD);
    const before = (await listAudit()).length;
    const nulBody = await createUserRoute(
      request("/api/v1/users", {
        method: "POST",
        cookie: admin,
        body: { username: "nul\u0000user", role: "viewer", password: "long enough password" },
      }),
    );
    expect([nulBody.status, (await nulBody.json()).error]).toEqual([
      400,
      "The request contains a NUL character (\\u0000 or %00), which Fleetskew does not accept",
    ]);
    expect((await auditRoute(request("/api/v1/audit?target=%00", { cookie: admin }))).status).toBe(400);
    for (const query of ["before=99999999999999999999999", "from=0000-01-01", "from=2026-02-30", "to=2026-13-01"]) {
      const response = await auditRoute(request(`/api/v1/audit?${query}`, { cookie: admin }));
      expect([query, response.status]).toEqual([query, 400]);
    }
    expect((await listAudit()).length).toBe(before);
  });

  it("records a signed-in person's refused change as denied, and not a refused read", async () => {
    const tech = await signIn("tech1", "technician password");
    const read = await listUsersRoute(request("/api/v1/users", { cookie: tech }));
    expect(read.status).toBe(403);
    expect(await listAudit({ action: "request.refused" })).toEqual([]);
    const write = await createUserRoute(
      request("/api/v1/users", {
        method: "POST",
        cookie: tech,
        body: { username: "sneaky", role: "admin", password: "long enough password" },
      }),
    );
    expect(write.status).toBe(403);
    expect(await listAudit({ action: "request.refused" })).toMatchObject([
      {
        actor: "tech1",
        role: "technician",
        outcome: "denied",
        targetId: "POST /api/v1/users",
        summary: "was refused POST /api/v1/users: This needs the admin role; tech1 holds technician",
      },
    ]);
  });

  it("signs out: the cookie is cleared and the session no longer works", async () => {
    const admin = await signIn("admin", ADMIN_PASSWORD);
    expect((await whoami(request("/api/v1/session", { cookie: admin }))).status).toBe(200);
    const out = await logout(request("/api/v1/session", { method: "DELETE", cookie: admin }));
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/^fleetskew_session=; .*Max-Age=0/);
    expect((await whoami(request("/api/v1/session", { cookie: admin }))).status).toBe(401);
    const events = await listAudit({ action: "session.logout" });
    expect(events[0]).toMatchObject({ actor: "admin", outcome: "success", ip: "127.0.0.1" });
  });

  it("marks the cookie Secure and __Host- behind https", async () => {
    const response = await loginRoute(
      new Request("https://fleet.example.com/api/v1/session", {
        method: "POST",
        headers: { "content-type": "application/json", host: "fleet.example.com", origin: "https://fleet.example.com" },
        body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(
      /^__Host-fleetskew_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Expires=.*; Secure$/,
    );
  });

  it("filters the audit log and exports it as CSV, quoting what needs quoting", async () => {
    const admin = await signIn("admin", ADMIN_PASSWORD);
    const filtered = await auditRoute(request("/api/v1/audit?action=session.&actor=admin&outcome=success", { cookie: admin }));
    const { events } = (await filtered.json()) as { events: { action: string; actor: string; role: string; summary: string }[] };
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.action.startsWith("session.") && e.actor === "admin")).toBe(true);
    expect(events[0]).toMatchObject({ role: "admin", summary: "signed in" });

    const csv = await auditRoute(request("/api/v1/audit?format=csv&action=user.", { cookie: admin }));
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="fleetskew-audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,at,actor,role,action,targetType,targetId,summary,outcome,ip,details");
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(1).every((l) => l.includes(",user.create,") || l.includes(",user.update,"))).toBe(true);
    // Details are JSON with quotes and commas: one quoted field, quotes doubled.
    expect(lines.find((l) => l.includes(",user.create,"))).toMatch(/,"\{""role"":""technician""[^\r\n]*\}"$/);

    // A date as "to" includes that whole day (UTC).
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const count = async (query: string) =>
      (
        (await (
          await auditRoute(request(`/api/v1/audit?action=session.&actor=admin&outcome=success&${query}`, { cookie: admin }))
        ).json()) as { events: unknown[] }
      ).events.length;
    expect(await count(`from=${today}&to=${today}`)).toBe(events.length);
    expect(await count(`to=${yesterday}`)).toBe(0);

    // % and _ are characters here, not LIKE wildcards.
    for (const query of ["action=_", "action=%25", "target=%25", "target=_"])
      expect([
        query,
        ((await (await auditRoute(request(`/api/v1/audit?${query}`, { cookie: admin }))).json()) as { events: unknown[] }).events,
      ]).toEqual([query, []]);

    const bad = await auditRoute(request("/api/v1/audit?from=last-week", { cookie: admin }));
    expect([bad.status, (await bad.json()).error]).toEqual([400, "Dates are ISO 8601, e.g. 2026-11-01"]);
  });

  it("lets an admin add skew limits for later releases, not change the MCO's own", async () => {
    const admin = await signIn("admin", ADMIN_PASSWORD);
    const put = (entries: unknown) =>
      putLimits(request("/api/v1/settings/skew-limits", { method: "PUT", cookie: admin, headers: { origin: ORIGIN }, body: { entries } }));
    const saved = await put([{ fromRelease: "4.24.0", ocpVersion: "4.16.0", rhelVersion: "9.4" }]);
    expect(saved.status).toBe(200);
    const table = await (await getLimits(request("/api/v1/settings/skew-limits", { cookie: admin }))).json();
    expect(table.effective).toEqual([
      { fromRelease: "4.22.0", ocpVersion: "4.13.0", rhelVersion: "9.2" },
      { fromRelease: "4.24.0", ocpVersion: "4.16.0", rhelVersion: "9.4" },
    ]);
    const known = await put([{ fromRelease: "4.22.0", ocpVersion: "4.14.0", rhelVersion: "9.2" }]);
    expect([known.status, (await known.json()).error]).toEqual([
      400,
      "4.22.0 is not after 4.22: up to and including 4.22 the MCO's own limits apply; add releases from 4.23.0 on",
    ]);
    // A later release of a minor the MCO's table covers, or an earlier one, would contradict it.
    expect((await put([{ fromRelease: "4.22.5", ocpVersion: "4.14.0", rhelVersion: "9.2" }])).status).toBe(400);
    expect((await put([{ fromRelease: "4.20.0", ocpVersion: "4.12.0", rhelVersion: "8.6" }])).status).toBe(400);
    const bad = await put([{ fromRelease: "4.24", ocpVersion: "4.16.0", rhelVersion: "9.4" }]);
    expect([bad.status, (await bad.json()).error]).toEqual([400, "The from release (item 1) must be a release like 4.24.0"]);
    expect((await listAudit({ action: "settings.update" }))[0]).toMatchObject({
      actor: "admin",
      role: "admin",
      summary: "set the skew limits for 4.24.0",
    });
  });
});
