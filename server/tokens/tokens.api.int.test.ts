import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as sessionRoute } from "@/app/api/v1/session/route";
import { GET as listTokensRoute, POST as createTokenRoute } from "@/app/api/v1/tokens/route";
import { DELETE as revokeTokenRoute } from "@/app/api/v1/tokens/[id]/route";
import { GET as listServiceAccountsRoute, POST as createServiceAccountRoute } from "@/app/api/v1/service-accounts/route";
import { DELETE as disableServiceAccountRoute } from "@/app/api/v1/service-accounts/[id]/route";
import { POST as serviceTokenRoute } from "@/app/api/v1/service-accounts/[id]/tokens/route";
import { GET as clustersRoute } from "@/app/api/v1/clusters/route";
import { DELETE as removeClusterRoute } from "@/app/api/v1/clusters/[name]/route";
import { GET as rolloutsRoute, POST as planRoute } from "@/app/api/v1/rollouts/route";
import { POST as approveRolloutRoute } from "@/app/api/v1/rollouts/[id]/approve/route";
import { POST as releaseRoute } from "@/app/api/v1/rollouts/[id]/release/route";
import { POST as approveAckRoute } from "@/app/api/v1/acknowledgements/[id]/approve/route";
import { POST as rejectAckRoute } from "@/app/api/v1/acknowledgements/[id]/reject/route";
import { GET as usersRoute } from "@/app/api/v1/users/route";
import { POST as previewRoute } from "@/app/api/v1/preview/route";
import { actorFor } from "../auth/actor";
import { login } from "../auth/login";
import { hashPassword } from "../auth/password";
import { isWellFormedSecret, randomPartOf, secretFromRandom } from "../domain/apiTokenSecret";
import { WORK_LIMITS } from "../domain/workLimits";
import { workLimiter } from "../security/workLimiter";
import { listAudit } from "../store/audit";
import { getPool } from "../store/db";
import { createUser, updateUser, type UserRecord } from "../store/users";
import { seedFleetRows } from "../testing/fleetRows";
import { useMigratedDatabase } from "../testing/database";
import { params, request, sessionCookie, type RequestInit } from "../testing/routes";
import type { CreatedTokenAnswer, TokenAnswer } from "./contract";
import { issueToken } from "./tokens";

/**
 * API tokens and service accounts through their route handlers, with real Requests, real sessions
 * and real Postgres: what a script sending `Authorization: Bearer fsk_…` gets back.
 */
useMigratedDatabase();

const PASSWORD = "a password for the tests";
const UUID = "00000000-0000-4000-8000-000000000000";
const FOREIGN = "https://evil.example";
let ada: UserRecord;
let tess: UserRecord;
let val: UserRecord;
let adaCookie: string;
let tessCookie: string;

const bearer = (secret: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...init.headers, authorization: `Bearer ${secret}` },
});

async function createToken(
  cookie: string,
  body: unknown,
): Promise<{ status: number; json: CreatedTokenAnswer & { error?: string; field?: string } }> {
  const response = await createTokenRoute(request("/api/v1/tokens", { method: "POST", cookie, body }));
  return { status: response.status, json: await response.json() };
}

async function tokenFor(cookie: string, body: Record<string, unknown>): Promise<CreatedTokenAnswer> {
  const { status, json } = await createToken(cookie, { expiresInDays: 30, ...body });
  expect(status, JSON.stringify(json)).toBe(201);
  return json;
}

const clusterNames = async (init: RequestInit) => {
  const response = await clustersRoute(request("/api/v1/clusters", init));
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { clusters: { name: string }[] }).clusters.map((c) => c.name).sort();
};

beforeAll(async () => {
  ada = await createUser({ username: "ada", role: "admin", passwordHash: await hashPassword(PASSWORD) }, { actor: null });
  tess = await createUser({ username: "tess", role: "technician", passwordHash: await hashPassword(PASSWORD) }, { actor: null });
  val = await createUser({ username: "val", role: "viewer", passwordHash: await hashPassword(PASSWORD) }, { actor: null });
  adaCookie = await sessionCookie(ada);
  tessCookie = await sessionCookie(tess);
  await seedFleetRows([
    { name: "emea-1", labels: { region: "emea" } },
    { name: "emea-2", labels: { region: "emea" } },
    { name: "us-1", labels: { region: "us" } },
    { name: "doomed-1" },
    { name: "doomed-2" },
    { name: "doomed-3" },
  ]);
});

describe("the secret", () => {
  it("is fsk_, 43 base62 characters of randomness and a CRC32 checksum a scanner can check; a changed character fails it", () => {
    const secret = secretFromRandom(randomBytes(32));
    expect(secret).toMatch(/^fsk_[0-9A-Za-z]{49}$/);
    expect(isWellFormedSecret(secret)).toBe(true);
    const flipped = secret.slice(0, 10) + (secret[10] === "a" ? "b" : "a") + secret.slice(11);
    expect(isWellFormedSecret(flipped)).toBe(false);
    expect(isWellFormedSecret(secretFromRandom(new Uint8Array(32)))).toBe(true);
  });
});

describe("POST, GET and DELETE /api/v1/tokens", () => {
  it("answers the secret once; the list shows when it was created, expires and last used, never the secret", async () => {
    const created = await tokenFor(tessCookie, { name: "ci pipeline", expiresInDays: 90 });
    expect(isWellFormedSecret(created.token)).toBe(true);
    expect(created).toMatchObject({ name: "ci pipeline", owner: "tess", role: null, scope: "", state: "active", lastUsedAt: null });
    expect(created.token.startsWith(created.prefix)).toBe(true);
    expect(new Date(created.expiresAt).getTime() - new Date(created.createdAt).getTime()).toBe(90 * 86_400_000);

    const me = await sessionRoute(request("/api/v1/session", bearer(created.token)));
    expect(me.status).toBe(200);
    expect(((await me.json()) as { user: UserRecord }).user.username).toBe("tess");

    const listed = await listTokensRoute(request("/api/v1/tokens", { cookie: tessCookie }));
    const text = await listed.text();
    expect(text).not.toContain(randomPartOf(created.token));
    const mine = (JSON.parse(text) as { tokens: TokenAnswer[] }).tokens.find((t) => t.id === created.id)!;
    expect(mine.lastUsedAt).not.toBeNull();
    expect(mine.lastUsedIp).toBe("127.0.0.1");
    expect(mine).not.toHaveProperty("token");
    // Only one's own.
    const adaList = (await (await listTokensRoute(request("/api/v1/tokens", { cookie: adaCookie }))).json()) as { tokens: TokenAnswer[] };
    expect(adaList.tokens.map((t) => t.id)).not.toContain(created.id);
  });

  it("refuses, in a plain sentence, what a token may not be: no expiry or past a year, approver, a ceiling above the owner, a scope that does not parse", async () => {
    const cases: [unknown, number, RegExp][] = [
      [{ name: "x" }, 400, /^The expiry must be a number of days from 1 to 365$/],
      [{ name: "x", expiresInDays: 0 }, 400, /at least 1 day/],
      [{ name: "x", expiresInDays: 366 }, 400, /at most 365 days/],
      [{ name: "", expiresInDays: 5 }, 400, /^Give the token a name/],
      [{ name: "x", expiresInDays: 5, role: "approver" }, 400, /never approves/],
      [{ name: "x", expiresInDays: 5, role: "admin" }, 403, /tess is not an admin/],
      [
        { name: "x", expiresInDays: 5, scope: "colour=blue" },
        400,
        /^The scope is not one Fleetskew reads: "colour=blue" is not a scope term/,
      ],
      [{ name: "x", expiresInDays: 5, secret: "mine" }, 400, /"secret" is not a field/],
    ];
    for (const [body, status, message] of cases) {
      const { status: got, json } = await createToken(tessCookie, body);
      expect([got, json.error], JSON.stringify(body)).toEqual([status, expect.stringMatching(message)]);
    }
    const { status, json } = await createToken(await sessionCookie(val), { name: "x", expiresInDays: 5, role: "technician" });
    expect([status, json.error, json.field]).toEqual([403, "val holds viewer, so a token of theirs cannot be a technician", "role"]);
  });

  it("revokes at once: own tokens, or anyone's as an admin; someone else's is a 404 for others", async () => {
    const created = await tokenFor(tessCookie, { name: "to revoke" });
    const revoke = (cookie: string, id: string) =>
      revokeTokenRoute(request(`/api/v1/tokens/${id}`, { method: "DELETE", cookie }), params({ id }));
    expect((await revoke(await sessionCookie(val), created.id)).status).toBe(404);
    const done = await revoke(tessCookie, created.id);
    expect(done.status).toBe(200);
    expect(((await done.json()) as { token: TokenAnswer }).token.state).toBe("revoked");
    const refused = await clustersRoute(request("/api/v1/clusters", bearer(created.token)));
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^This API token \(to revoke\) was revoked at .*; create a new one$/,
    );

    const other = await tokenFor(tessCookie, { name: "an admin revokes" });
    // The admin's Users page lists each person's tokens in force beside them, never a secret, never a revoked one.
    const tokensOfTess = async () => {
      const answer = await usersRoute(request("/api/v1/users", { cookie: adaCookie }));
      expect(answer.status).toBe(200);
      const text = await answer.text();
      expect(text).not.toContain(randomPartOf(other.token));
      const tess = (JSON.parse(text) as { users: { username: string; tokens: { id: string; name: string }[] }[] }).users.find(
        (u) => u.username === "tess",
      )!;
      return tess.tokens.map((t) => t.name);
    };
    expect(await tokensOfTess()).toContain("an admin revokes");
    expect(await tokensOfTess()).not.toContain("to revoke");
    expect((await revoke(adaCookie, other.id)).status).toBe(200);
    expect(await tokensOfTess()).not.toContain("an admin revokes");
    expect((await clustersRoute(request("/api/v1/clusters", bearer(other.token)))).status).toBe(401);
    const audit = await listAudit({ limit: 200 });
    expect(audit.filter((e) => e.action === "token.revoke").map((e) => e.actor)).toEqual(expect.arrayContaining(["tess", "ada"]));
    expect(audit.filter((e) => e.action === "token.create").length).toBeGreaterThanOrEqual(3);
  });
});

describe("Authorization: Bearer", () => {
  it("a viewer-ceiling token reads and cannot write (403)", async () => {
    const { token } = await tokenFor(tessCookie, { name: "read only", role: "viewer" });
    expect((await rolloutsRoute(request("/api/v1/rollouts", bearer(token)))).status).toBe(200);
    expect(await clusterNames(bearer(token))).toContain("us-1");
    const write = await planRoute(request("/api/v1/rollouts", bearer(token, { method: "POST", body: { dryRun: true } })));
    expect(write.status).toBe(403);
    expect(((await write.json()) as { error: string }).error).toBe(
      "This needs the technician role; tess holds viewer through token read only",
    );
  });

  it("an expired, revoked, unknown, malformed token, or one of a disabled account, gets 401 at once with a plain sentence", async () => {
    const expired = await issueToken(
      tess,
      { name: "old", expiresInDays: 1, scope: "" },
      actorFor(tess, null),
      new Date(Date.now() - 2 * 86_400_000),
    );
    const unknown = secretFromRandom(randomBytes(32));
    const cases: [string, RegExp][] = [
      [expired.token, /^This API token \(old\) expired at .*; create a new one$/],
      [unknown, /not known to Fleetskew/],
      [unknown.slice(0, -1) + (unknown.endsWith("a") ? "b" : "a"), /malformed/],
      ["not-a-token", /takes a Fleetskew API token/],
      ["", /takes a Fleetskew API token/],
    ];
    for (const [secret, message] of cases) {
      // With a valid session cookie too: a refused bearer is not a fall back to the cookie.
      const response = await clustersRoute(request("/api/v1/clusters", bearer(secret, { cookie: tessCookie })));
      expect(response.status, secret).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(((await response.json()) as { error: string }).error).toMatch(message);
    }
    const sam = await createUser({ username: "sam", role: "technician", passwordHash: await hashPassword(PASSWORD) }, { actor: null });
    const samToken = await issueToken(sam, { name: "sam's", expiresInDays: 5, scope: "" }, actorFor(sam, null));
    expect((await clustersRoute(request("/api/v1/clusters", bearer(samToken.token)))).status).toBe(200);
    await updateUser(sam.id, { disabled: true }, { actor: "ada" }, () => {});
    const refused = await clustersRoute(request("/api/v1/clusters", bearer(samToken.token)));
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([
      401,
      "The account behind this API token (sam) is disabled",
    ]);
  });

  it("no token, not even an admin's, approves a rollout, releases a wave, decides an acknowledgement, or manages users, tokens or service accounts (403)", async () => {
    const { token } = await tokenFor(adaCookie, { name: "admin's automation" });
    const calls: [string, Promise<Response>][] = [
      [
        "approve rollout",
        approveRolloutRoute(request(`/api/v1/rollouts/${UUID}/approve`, bearer(token, { method: "POST", body: {} })), params({ id: UUID })),
      ],
      [
        "release",
        releaseRoute(
          request(`/api/v1/rollouts/${UUID}/release`, bearer(token, { method: "POST", body: { wave: 1 } })),
          params({ id: UUID }),
        ),
      ],
      [
        "approve ack",
        approveAckRoute(
          request(`/api/v1/acknowledgements/${UUID}/approve`, bearer(token, { method: "POST", body: {} })),
          params({ id: UUID }),
        ),
      ],
      [
        "reject ack",
        rejectAckRoute(
          request(`/api/v1/acknowledgements/${UUID}/reject`, bearer(token, { method: "POST", body: { comment: "no" } })),
          params({ id: UUID }),
        ),
      ],
      ["users", usersRoute(request("/api/v1/users", bearer(token)))],
      ["tokens", listTokensRoute(request("/api/v1/tokens", bearer(token)))],
      [
        "new token",
        createTokenRoute(request("/api/v1/tokens", bearer(token, { method: "POST", body: { name: "child", expiresInDays: 5 } }))),
      ],
      ["service accounts", listServiceAccountsRoute(request("/api/v1/service-accounts", bearer(token)))],
    ];
    for (const [what, call] of calls) {
      const response = await call;
      expect(response.status, what).toBe(403);
      expect(((await response.json()) as { error: string }).error, what).toMatch(
        /^An API token cannot .*; that needs a person signed in to the console \(token admin's automation\)$/,
      );
    }
    // What an admin's token may do, it does: read every cluster.
    expect(await clusterNames(bearer(token))).toContain("emea-1");
  });

  it("acts within the token's scope and the owner's grants as they are now: losing a grant narrows the token at once", async () => {
    const nina = await createUser(
      {
        username: "nina",
        role: "technician",
        passwordHash: "scrypt$unused",
        grants: [
          { role: "technician", scope: "label=region=emea" },
          { role: "viewer", scope: "label=region=us" },
        ],
      },
      { actor: null },
    );
    const ninaCookie = await sessionCookie(nina);
    const wide = await tokenFor(ninaCookie, { name: "everything nina reaches" });
    const emea = await tokenFor(ninaCookie, { name: "emea only", scope: "label=region=emea" });
    expect(await clusterNames(bearer(wide.token))).toEqual(["emea-1", "emea-2", "us-1"]);
    expect(await clusterNames(bearer(emea.token))).toEqual(["emea-1", "emea-2"]);

    // The viewer grant over us goes: the token no longer reads us-1, on its very next request.
    await getPool().query(`DELETE FROM "AccessGrant" WHERE "userId" = $1 AND scope = 'label=region=us'`, [nina.id]);
    expect(await clusterNames(bearer(wide.token))).toEqual(["emea-1", "emea-2"]);

    // tess is made a viewer: her token (no ceiling) can no longer plan.
    const { token } = await tokenFor(tessCookie, { name: "planner" });
    const plan = () => planRoute(request("/api/v1/rollouts", bearer(token, { method: "POST", body: { dryRun: true } })));
    expect((await plan()).status).not.toBe(403);
    await updateUser(tess.id, { role: "viewer" }, { actor: "ada" }, () => {});
    const refused = await plan();
    expect(refused.status).toBe(403);
    await updateUser(tess.id, { role: "technician" }, { actor: "ada" }, () => {});
  });

  it("writes with a bearer need no Origin and pass a foreign one; a cookie write from a foreign origin is still refused, and a bearer beside the cookie is what counts", async () => {
    const { token } = await tokenFor(adaCookie, { name: "cleanup", role: "admin" });
    const remove = (name: string, init: RequestInit) =>
      removeClusterRoute(request(`/api/v1/clusters/${name}`, { method: "DELETE", ...init }), params({ name }));
    expect((await remove("doomed-1", bearer(token, { origin: null }))).status).toBe(204);
    expect((await remove("doomed-2", bearer(token, { origin: FOREIGN }))).status).toBe(204);

    const refused = await remove("doomed-3", { cookie: adaCookie, origin: FOREIGN });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toMatch(/Cross-origin request refused/);
    // The admin's cookie with a viewer's token: the token decides, and a viewer may not remove clusters.
    const viewerToken = await tokenFor(await sessionCookie(val), { name: "val reads" });
    const asViewer = await remove("doomed-3", bearer(viewerToken.token, { cookie: adaCookie, origin: FOREIGN }));
    expect(asViewer.status).toBe(403);
    expect(((await asViewer.json()) as { error: string }).error).toMatch(/val holds viewer through token val reads/);
    expect(await clusterNames({ cookie: adaCookie })).toContain("doomed-3");
  });

  it("records the last use at most once a minute, and audits the first use from a new address", async () => {
    const { token, id } = await tokenFor(tessCookie, { name: "roaming" });
    const from = (ip: string) => clustersRoute(request("/api/v1/clusters", bearer(token, { headers: { "x-fleetskew-client-ip": ip } })));
    const uses = async () => (await listAudit({ limit: 500 })).filter((e) => e.action === "token.use" && e.targetId === "tess/roaming");
    expect((await from("10.0.0.1")).status).toBe(200);
    expect((await from("10.0.0.1")).status).toBe(200);
    expect((await uses()).map((e) => e.ip)).toEqual(["10.0.0.1"]);
    const first = (await getPool().query(`SELECT "lastUsedAt" FROM "ApiToken" WHERE id = $1`, [id])).rows[0].lastUsedAt as Date;
    expect((await from("10.0.0.1")).status).toBe(200);
    const again = (await getPool().query(`SELECT "lastUsedAt" FROM "ApiToken" WHERE id = $1`, [id])).rows[0].lastUsedAt as Date;
    expect(again.getTime()).toBe(first.getTime());
    expect((await from("10.0.0.2")).status).toBe(200);
    expect((await uses()).map((e) => e.ip).sort()).toEqual(["10.0.0.1", "10.0.0.2"]);
    const row = (await getPool().query(`SELECT "lastUsedIp" FROM "ApiToken" WHERE id = $1`, [id])).rows[0];
    expect(row.lastUsedIp).toBe("10.0.0.2");
  });

  it("counts a token's expensive work under its owner: tokens do not multiply a person's limit", async () => {
    const { token } = await tokenFor(tessCookie, { name: "previewer" });
    const releases: (() => void)[] = [];
    for (let i = 0; i < WORK_LIMITS.preview.perPerson; i++) releases.push(await workLimiter().acquire("preview", tess.id));
    try {
      const response = await previewRoute(request("/api/v1/preview", bearer(token, { method: "POST", body: {} })));
      expect(response.status).toBe(429);
    } finally {
      releases.forEach((release) => release());
    }
  });
});

describe("service accounts", () => {
  it("admins create one with grants, give it tokens, and disabling it revokes them; it never signs in; tokens and others may not manage them", async () => {
    const created = await createServiceAccountRoute(
      request("/api/v1/service-accounts", {
        method: "POST",
        cookie: adaCookie,
        body: { username: "emea-bot", displayName: "EMEA pipeline", grants: [{ role: "technician", scope: "label=region=emea" }] },
      }),
    );
    expect(created.status).toBe(201);
    const { serviceAccount } = (await created.json()) as {
      serviceAccount: { id: string; authSource: string; createdBy: string; grants: unknown[] };
    };
    expect(serviceAccount).toMatchObject({
      authSource: "service",
      createdBy: "ada",
      grants: [{ role: "technician", scope: "label=region=emea" }],
    });
    const id = serviceAccount.id;

    const again = await createServiceAccountRoute(
      request("/api/v1/service-accounts", {
        method: "POST",
        cookie: adaCookie,
        body: { username: "emea-bot", grants: [{ role: "viewer", scope: "" }] },
      }),
    );
    expect(again.status).toBe(409);
    const approver = await createServiceAccountRoute(
      request("/api/v1/service-accounts", {
        method: "POST",
        cookie: adaCookie,
        body: { username: "x-bot", grants: [{ role: "approver", scope: "" }] },
      }),
    );
    expect([approver.status, ((await approver.json()) as { error: string }).error]).toEqual([400, expect.stringMatching(/never approves/)]);
    const byTechnician = await createServiceAccountRoute(
      request("/api/v1/service-accounts", {
        method: "POST",
        cookie: tessCookie,
        body: { username: "y-bot", grants: [{ role: "viewer", scope: "" }] },
      }),
    );
    expect(byTechnician.status).toBe(403);

    const issue = (body: unknown) =>
      serviceTokenRoute(request(`/api/v1/service-accounts/${id}/tokens`, { method: "POST", cookie: adaCookie, body }), params({ id }));
    const tooWide = await issue({ name: "too wide", expiresInDays: 5, role: "admin" });
    expect(tooWide.status).toBe(403);
    const issued = await issue({ name: "deploys", expiresInDays: 30 });
    expect(issued.status).toBe(201);
    const { token } = (await issued.json()) as CreatedTokenAnswer;
    expect(await clusterNames(bearer(token))).toEqual(["emea-1", "emea-2"]);

    // Its token manages nothing: not even service accounts, though an admin made it.
    const listedByToken = await listServiceAccountsRoute(request("/api/v1/service-accounts", bearer(token)));
    expect(listedByToken.status).toBe(403);
    const listed = (await (await listServiceAccountsRoute(request("/api/v1/service-accounts", { cookie: adaCookie }))).json()) as {
      serviceAccounts: { username: string; tokens: TokenAnswer[] }[];
    };
    expect(listed.serviceAccounts.find((s) => s.username === "emea-bot")!.tokens.map((t) => t.name)).toEqual(["deploys"]);

    // Never signs in with a password, whatever is tried.
    for (const password of ["", "anything at all", PASSWORD])
      expect((await login({ username: "emea-bot", password, ip: "127.0.0.1", userAgent: null, ttlHours: 1 })).ok).toBe(false);

    const disabled = await disableServiceAccountRoute(
      request(`/api/v1/service-accounts/${id}`, { method: "DELETE", cookie: adaCookie }),
      params({ id }),
    );
    expect(disabled.status).toBe(200);
    const after = (await disabled.json()) as { serviceAccount: { disabled: boolean; tokens: TokenAnswer[] } };
    expect(after.serviceAccount.disabled).toBe(true);
    expect(after.serviceAccount.tokens.map((t) => t.state)).toEqual(["revoked"]);
    expect((await clustersRoute(request("/api/v1/clusters", bearer(token)))).status).toBe(401);
    // A person is not a service account.
    const notService = await disableServiceAccountRoute(
      request(`/api/v1/service-accounts/${tess.id}`, { method: "DELETE", cookie: adaCookie }),
      params({ id: tess.id }),
    );
    expect(notService.status).toBe(404);
  });
});

describe("the database", () => {
  it("holds no token in plain text: no text or JSON column of any table contains a secret or its random part", async () => {
    const secrets = [
      (await tokenFor(tessCookie, { name: "scan me" })).token,
      (await tokenFor(adaCookie, { name: "scan me too", scope: "label=region=us" })).token,
    ];
    // Used once each, so that last-use and audit rows exist too.
    for (const secret of secrets) expect((await clustersRoute(request("/api/v1/clusters", bearer(secret)))).status).toBe(200);
    const columns = (
      await getPool().query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND data_type IN ('text', 'character varying', 'json', 'jsonb', 'USER-DEFINED', 'ARRAY')`,
      )
    ).rows;
    expect(columns.some((c) => c.table_name === "ApiToken" && c.column_name === "secretHash")).toBe(true);
    const found: string[] = [];
    for (const { table_name, column_name } of columns)
      for (const secret of secrets) {
        const { rows } = await getPool().query(
          `SELECT count(*)::int AS n FROM "${table_name}" WHERE "${column_name}"::text LIKE '%' || $1 || '%'`,
          [randomPartOf(secret)],
        );
        if (rows[0].n > 0) found.push(`${table_name}.${column_name}`);
      }
    expect(found).toEqual([]);
  });
});
