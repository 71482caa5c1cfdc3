import { actorFor } from "./actor";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DELETE as clearLockRoute, GET as locksRoute } from "@/app/api/v1/sign-in-locks/route";
import { request, sessionCookie } from "../testing/routes";
import { useMigratedDatabase } from "../testing/database";
import { listAudit } from "../store/audit";
import { listUsers } from "../store/users";
import { ensureInitialAccounts } from "./bootstrap";
import { clearSignInThrottle, login, MAX_FAILURES_PER_USER, reportSignInWindows, signInThrottles } from "./login";
import { userForToken } from "./session";
import { addUser, changeUser } from "./users";

useMigratedDatabase();

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const tempDir = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), "fleetskew-auth-"));
  dirs.push(d);
  return d;
};
const ttlHours = 12;

describe("first start", () => {
  it("creates admin, technician and approver in demo mode and writes their credentials with mode 0600", async () => {
    const dataDir = await tempDir();
    const result = await ensureInitialAccounts({ dataDir, adminPassword: undefined, demo: true });
    expect(result.created.map((a) => a.username)).toEqual(["admin", "technician", "approver"]);

    const creds = JSON.parse(await readFile(path.join(dataDir, "demo-credentials.json"), "utf8"));
    expect(Object.keys(creds)).toEqual(["admin", "technician", "approver"]);
    expect(creds.admin.username).toBe("admin");
    expect((await readFile(path.join(dataDir, "initial-admin-password"), "utf8")).trim()).toBe(creds.admin.password);
    expect((await stat(path.join(dataDir, "demo-credentials.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dataDir, "initial-admin-password"))).mode & 0o777).toBe(0o600);

    // The written passwords are the real ones.
    const signedIn = await login({
      username: "technician",
      password: creds.technician.password,
      ip: "10.0.0.1",
      userAgent: null,
      ttlHours,
    });
    expect(signedIn.ok && signedIn.user.role).toBe("technician");

    // A second start changes nothing and reveals nothing.
    const again = await ensureInitialAccounts({ dataDir: await tempDir(), adminPassword: undefined, demo: true });
    expect(again.created).toEqual([]);
    expect((await listUsers()).length).toBe(3);
  });
});

describe("sign-in", () => {
  it("starts a session that resolves to the user, and records the sign-in", async () => {
    await addUser({ username: "grace", role: "approver", password: "a long enough password" }, actorFor((await listUsers())[0]!, null));
    const result = await login({ username: "grace", password: "a long enough password", ip: "10.0.0.2", userAgent: "test", ttlHours });
    if (!result.ok) throw new Error("expected a session");
    expect((await userForToken(result.token))?.username).toBe("grace");
    expect(await userForToken("not-a-token")).toBeNull();
    const events = await listAudit({ action: "session.login" });
    expect(events.find((e) => e.actor === "grace" && e.outcome === "success")).toBeTruthy();
  });

  it("expires sessions", async () => {
    const result = await login({ username: "grace", password: "a long enough password", ip: "10.0.0.2", userAgent: null, ttlHours: 1 });
    if (!result.ok) throw new Error("expected a session");
    // Valid up to the end of its hour, and not after.
    expect((await userForToken(result.token, new Date(Date.now() + 3_500_000)))?.username).toBe("grace");
    expect(await userForToken(result.token, new Date(Date.now() + 3_700_000))).toBeNull();
  });

  it("answers an unknown user and a wrong password the same way, and audits both", async () => {
    expect(await login({ username: "nobody", password: "whatever-whatever", ip: "10.0.0.3", userAgent: null, ttlHours })).toEqual({
      ok: false,
      reason: "invalid",
    });
    expect(await login({ username: "grace", password: "wrong password!!", ip: "10.0.0.4", userAgent: null, ttlHours })).toEqual({
      ok: false,
      reason: "invalid",
    });
    const failures = (await listAudit({ action: "session.login" })).filter((e) => e.outcome === "failure");
    expect(failures.map((e) => e.actor)).toEqual(expect.arrayContaining(["nobody", "grace"]));
  });

  it("slows down, then locks, guessing one username from one address, even with the right password, and says when to retry", async () => {
    await addUser({ username: "linus", role: "viewer", password: "the right password" }, actorFor((await listUsers())[0]!, null));
    const t0 = Date.now();
    const at = (seconds: number) => new Date(t0 + seconds * 1000);
    const guess = (seconds: number, password = "a wrong guess!!", ip = "10.1.0.1") =>
      login({ username: "linus", password, ip, userAgent: null, ttlHours }, at(seconds));
    // Two tries at once, then a wait before each of the next three.
    expect(await guess(0)).toEqual({ ok: false, reason: "invalid" });
    expect(await guess(1)).toEqual({ ok: false, reason: "invalid" });
    expect(await guess(2)).toEqual({ ok: false, reason: "rate_limited", retryAfterSeconds: 4, locked: false });
    expect(await guess(6)).toEqual({ ok: false, reason: "invalid" });
    expect(await guess(10)).toMatchObject({ ok: false, reason: "rate_limited", locked: false });
    expect(await guess(21)).toEqual({ ok: false, reason: "invalid" });
    expect(await guess(66)).toEqual({ ok: false, reason: "invalid" });
    // Five judged: the right password is refused too, for the rest of the window.
    const locked = await guess(70, "the right password");
    expect(locked).toMatchObject({ ok: false, reason: "rate_limited", locked: true });
    expect(locked.ok === false && locked.reason === "rate_limited" && locked.retryAfterSeconds).toBe(15 * 60 - 70);
    // The same person from another address is not locked out, nor are other users from this one.
    expect((await guess(71, "the right password", "10.1.0.2")).ok).toBe(true);
    expect(
      (await login({ username: "grace", password: "a long enough password", ip: "10.1.0.1", userAgent: null, ttlHours }, at(72))).ok,
    ).toBe(true);
    // After the window it works again.
    expect((await guess(15 * 60 + 1, "the right password")).ok).toBe(true);
  });

  it("judges at most five of 40 simultaneous guesses of one username from one address", async () => {
    await addUser({ username: "hedy", role: "viewer", password: "hedy's password" }, actorFor((await listUsers())[0]!, null));
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        login({ username: "hedy", password: `guess ${i} guess`, ip: "10.5.0.1", userAgent: null, ttlHours }),
      ),
    );
    const judged = results.filter((r) => r.ok === false && r.reason === "invalid").length;
    expect(judged).toBeGreaterThanOrEqual(1);
    expect(judged).toBeLessThanOrEqual(MAX_FAILURES_PER_USER);
    expect(results.filter((r) => r.ok === false && r.reason === "rate_limited")).toHaveLength(40 - judged);
  });

  it("reports failed and refused sign-ins of an address as one audit event per window, and an admin can clear a lock", async () => {
    const admin = (await listUsers()).find((u) => u.username === "admin")!;
    const before = (await listAudit({ action: "session.login", limit: 500 })).filter((e) => e.ip === "10.7.0.1").length;
    const now = new Date();
    for (let i = 0; i < 30; i++)
      await login({ username: `user${i % 3}`, password: "wrong wrong wrong", ip: "10.7.0.1", userAgent: null, ttlHours }, now);
    // Only the window's first event is written at once.
    expect((await listAudit({ action: "session.login", limit: 500 })).filter((e) => e.ip === "10.7.0.1").length - before).toBe(1);
    expect(await reportSignInWindows(now)).toBe(0);
    expect(await reportSignInWindows(new Date(now.getTime() + 16 * 60_000))).toBeGreaterThanOrEqual(1);
    const summary = (await listAudit({ action: "session.login", limit: 500 })).find((e) => e.ip === "10.7.0.1" && e.actor === null)!;
    expect(summary.details).toMatchObject({ failures: 5, refused: 24, usernames: ["user0", "user1", "user2"] });
    expect(summary.summary).toMatch(/^5 failed and 24 refused sign-in attempts from 10\.7\.0\.1 between /);
    // Reported once.
    expect(await reportSignInWindows(new Date(now.getTime() + 16 * 60_000))).toBe(0);

    expect(
      (await signInThrottles(now))
        .filter((t) => t.ip === "10.7.0.1")
        .map((t) => t.username)
        .sort(),
    ).toEqual(["user0", "user1", "user2"]);
    expect(await clearSignInThrottle({ username: "user0", address: "10.7.0.1" }, actorFor(admin, "10.9.9.9"))).toEqual({ cleared: 1 });
    expect(
      (await signInThrottles(now))
        .filter((t) => t.ip === "10.7.0.1")
        .map((t) => t.username)
        .sort(),
    ).toEqual(["user1", "user2"]);
    expect((await listAudit({ action: "session.unlock" }))[0]).toMatchObject({ actor: "admin", targetId: "user0", ip: "10.9.9.9" });

    // The same through the API, as the users page does it.
    const cookie = await sessionCookie(admin);
    const { locks } = await (await locksRoute(request("/api/v1/sign-in-locks", { cookie }))).json();
    expect(
      locks
        .filter((l: { ip: string }) => l.ip === "10.7.0.1")
        .map((l: { username: string }) => l.username)
        .sort(),
    ).toEqual(["user1", "user2"]);
    const cleared = await clearLockRoute(request("/api/v1/sign-in-locks?username=user1&address=10.7.0.1", { method: "DELETE", cookie }));
    expect([cleared.status, await cleared.json()]).toEqual([200, { cleared: 1 }]);
  });
});

describe("user administration", () => {
  it("disabling a user ends their sessions and stops them signing in", async () => {
    const admin = (await listUsers()).find((u) => u.username === "admin")!;
    const user = await addUser({ username: "margaret", role: "technician", password: "another long password" }, actorFor(admin, null));
    const session = await login({ username: "margaret", password: "another long password", ip: "10.2.0.1", userAgent: null, ttlHours });
    if (!session.ok) throw new Error("expected a session");
    await changeUser(user.id, { disabled: true }, actorFor(admin, "10.9.9.9"));
    expect(await userForToken(session.token)).toBeNull();
    expect((await login({ username: "margaret", password: "another long password", ip: "10.2.0.1", userAgent: null, ttlHours })).ok).toBe(
      false,
    );
    const event = (await listAudit({ action: "user.update" })).find((e) => e.targetId === "margaret");
    expect(event).toMatchObject({ actor: "admin", ip: "10.9.9.9", details: { disabled: true } });
  });

  it("refuses a duplicate username with 409", async () => {
    const admin = (await listUsers()).find((u) => u.username === "admin")!;
    await expect(
      addUser({ username: "grace", role: "viewer", password: "yet another password" }, actorFor(admin, null)),
    ).rejects.toMatchObject({
      status: 409,
      message: "a user named grace already exists",
    });
  });

  it("never leaves the console without an active admin", async () => {
    const admin = (await listUsers()).find((u) => u.username === "admin")!;
    await expect(changeUser(admin.id, { role: "viewer" }, actorFor(admin, null))).rejects.toThrow(/your own admin role/);
    const other = await addUser({ username: "root2", role: "admin", password: "second admin password" }, actorFor(admin, null));
    // With two admins, one may demote the other, but then the survivor is the last.
    await changeUser(other.id, { role: "viewer" }, actorFor(admin, null));
    const viewer = (await listUsers()).find((u) => u.username === "root2")!;
    expect(viewer.role).toBe("viewer");
    await expect(changeUser(admin.id, { disabled: true }, actorFor({ ...viewer, role: "admin" }, null))).rejects.toThrow(
      /admin is the last active admin/,
    );
  });

  it("changing a password ends existing sessions", async () => {
    const admin = (await listUsers()).find((u) => u.username === "admin")!;
    const grace = (await listUsers()).find((u) => u.username === "grace")!;
    const session = await login({ username: "grace", password: "a long enough password", ip: "10.3.0.1", userAgent: null, ttlHours });
    if (!session.ok) throw new Error("expected a session");
    await changeUser(grace.id, { password: "a brand new password" }, actorFor(admin, null));
    expect(await userForToken(session.token)).toBeNull();
    expect((await login({ username: "grace", password: "a brand new password", ip: "10.3.0.1", userAgent: null, ttlHours })).ok).toBe(true);
  });
});
