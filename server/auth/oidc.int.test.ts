import { actorFor } from "./actor";
import { randomBytes } from "node:crypto";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as callbackRoute } from "@/app/api/v1/session/oidc/callback/route";
import { GET as startRoute } from "@/app/api/v1/session/oidc/route";
import { DELETE as signOutRoute, GET as whoami, POST as passwordSignIn } from "@/app/api/v1/session/route";
import { PUT as putSignInSettings } from "@/app/api/v1/settings/sign-in/route";
import { addUser } from "./users";
import { createUser } from "../store/users";
import { hashPassword } from "./password";
import { listAudit } from "../store/audit";
import { listUsers } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { startTestProvider, type TestProvider } from "../testing/oidcProvider";
import { ORIGIN, request } from "../testing/routes";
import { sealFlow } from "./oidc";
import { updateUser } from "../store/users";

/**
 * Single sign-on against a real OpenID provider (oidc-provider on a loopback port): the start and
 * callback routes as the browser calls them, the provider's sign-in form driven over HTTP.
 */
useMigratedDatabase();
let idp: TestProvider;
const CALLBACK = `${ORIGIN}/api/v1/session/oidc/callback`;

beforeAll(async () => {
  idp = await startTestProvider({ redirectUris: [CALLBACK], postLogoutRedirectUris: [`${ORIGIN}/login`] });
  Object.assign(process.env, {
    FLEETSKEW_SECRET_KEY: randomBytes(32).toString("base64"),
    FLEETSKEW_PUBLIC_URL: ORIGIN,
    FLEETSKEW_OIDC_ISSUER: idp.issuer,
    FLEETSKEW_OIDC_CLIENT_ID: idp.clientId,
    FLEETSKEW_OIDC_CLIENT_SECRET: idp.clientSecret,
    FLEETSKEW_OIDC_NAME: "Test SSO",
    FLEETSKEW_OIDC_ROLES:
      "fleet-admins=admin,fleet-approvers=approver,fleet-technicians=technician,everyone=viewer,emea-field=technician@clusterSet=edge-emea,apac-field=technician@ clusterSet=edge-apac",
  });
  idp.people.set("ada", { password: "ada's password", groups: ["fleet-approvers", "staff"], name: "Ada Approver" });
  idp.people.set("nobody", { password: "nobody's password", groups: ["staff", "canteen"] });
});
afterAll(() => idp?.close());

const cookieOf = (response: Response, prefix: string) =>
  response.headers
    .getSetCookie()
    .find((c) => c.startsWith(`${prefix}=`))
    ?.split(";")[0];

/** The provider's sign-in and the console's callback, start to end. */
const signInThrough = async (username: string, password: string) => {
  const { back, flow } = await throughProvider(username, password);
  return callback(back, flow);
};

/** Starts at the console, signs in at the provider; the provider's redirect back and the flow cookie. */
async function throughProvider(username: string, password: string, next = "/acknowledgements") {
  const start = await startRoute(request(`/api/v1/session/oidc?next=${encodeURIComponent(next)}`));
  expect(start.status).toBe(303);
  const flow = cookieOf(start, "fleetskew_oidc")!;
  expect(start.headers.getSetCookie()[0]).toMatch(/^fleetskew_oidc=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=600$/);
  const authorization = new URL(start.headers.get("location")!);
  expect(authorization.origin).toBe(idp.issuer);
  expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorization.searchParams.get("redirect_uri")).toBe(CALLBACK);
  const back = await idp.signIn(authorization.href, username, password);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return { back, flow };
}

async function callback(back: URL, flow: string | undefined) {
  const response = await callbackRoute(request(`/api/v1/session/oidc/callback${back.search}`, { cookie: flow, origin: null }));
  expect(response.status).toBe(303);
  const refused = cookieOf(response, "fleetskew_sign_in_refused");
  return {
    response,
    location: response.headers.get("location"),
    session: cookieOf(response, "fleetskew_session"),
    refused: refused ? decodeURIComponent(refused.split("=")[1]!) || undefined : undefined,
  };
}

describe("single sign-on with OpenID Connect", () => {
  it("signs a member of an approvers group in as an approver, and records how", async () => {
    const { back, flow } = await throughProvider("ada", "ada's password");
    const result = await callback(back, flow);
    expect(result.refused).toBeUndefined();
    expect(result.location).toBe("/acknowledgements");
    const me = await (await whoami(request("/api/v1/session", { cookie: result.session }))).json();
    expect(me.user).toMatchObject({ username: "ada", role: "approver", displayName: "Ada Approver", authSource: "oidc" });
    const [login] = await listAudit({ action: "session.login", actor: "ada" });
    expect(login).toMatchObject({
      outcome: "success",
      summary: "signed in with single sign-on (OpenID Connect)",
      details: { method: "oidc", issuer: idp.issuer, group: "fleet-approvers" },
    });
  });

  it("follows the groups at each sign-in: a new group gives its role, a lost one takes it away", async () => {
    idp.people.get("ada")!.groups = ["fleet-admins"];
    let signedIn = await signInThrough("ada", "ada's password");
    expect((await (await whoami(request("/api/v1/session", { cookie: signedIn.session }))).json()).user.role).toBe("admin");
    idp.people.get("ada")!.groups = ["everyone"];
    signedIn = await signInThrough("ada", "ada's password");
    expect((await (await whoami(request("/api/v1/session", { cookie: signedIn.session }))).json()).user.role).toBe("viewer");
    expect((await listAudit({ action: "user.update", target: "ada" })).map((e) => e.summary)).toEqual([
      "grants of ada changed from admin to viewer by their groups at sign-in",
      "grants of ada changed from approver to admin by their groups at sign-in",
    ]);
    // Still one account.
    expect((await listUsers()).filter((u) => u.username === "ada")).toHaveLength(1);
  });

  it("gives the union of every matching group's grants, replaced at each sign-in and audited when they change", async () => {
    idp.people.set("tess", { password: "tess's password", groups: ["emea-field", "apac-field", "everyone", "staff"] });
    let signedIn = await signInThrough("tess", "tess's password");
    let me = (await (await whoami(request("/api/v1/session", { cookie: signedIn.session }))).json()).user;
    expect(me).toMatchObject({
      role: "technician",
      grants: [
        { role: "technician", scope: "clusterSet=edge-apac" },
        { role: "technician", scope: "clusterSet=edge-emea" },
        { role: "viewer", scope: "" },
      ],
    });
    idp.people.get("tess")!.groups = ["emea-field"];
    signedIn = await signInThrough("tess", "tess's password");
    me = (await (await whoami(request("/api/v1/session", { cookie: signedIn.session }))).json()).user;
    expect(me.grants).toEqual([{ role: "technician", scope: "clusterSet=edge-emea" }]);
    const [changed] = await listAudit({ action: "user.update", target: "tess" });
    expect(changed).toMatchObject({
      summary:
        "grants of tess changed from technician@clusterSet=edge-apac, technician@clusterSet=edge-emea, viewer to technician@clusterSet=edge-emea by their groups at sign-in",
      details: { grants: { to: [{ role: "technician", scope: "clusterSet=edge-emea" }] } },
    });
    expect(changed!.details).not.toHaveProperty("role");
    // The same groups again change nothing, and say nothing.
    await signInThrough("tess", "tess's password");
    expect(await listAudit({ action: "user.update", target: "tess" })).toHaveLength(1);
  });

  it("ends the sessions of someone who lost every mapped group when they next sign in", async () => {
    idp.people.get("ada")!.groups = ["fleet-approvers"];
    const earlier = await signInThrough("ada", "ada's password");
    expect((await whoami(request("/api/v1/session", { cookie: earlier.session }))).status).toBe(200);
    idp.people.get("ada")!.groups = ["staff"];
    const refused = await signInThrough("ada", "ada's password");
    expect(refused.refused).toMatch(/^ada is not in any group that has a Fleetskew role/);
    expect((await whoami(request("/api/v1/session", { cookie: earlier.session }))).status).toBe(401);
    expect((await listAudit({ action: "session.logout", target: "ada" }))[0]!.summary).toMatch(
      /^ended \d+ session\(s\) of ada: no mapped group at sign-in$/,
    );
    idp.people.get("ada")!.groups = ["everyone"];
  });

  it("refuses a person in no mapped group, saying which groups would do", async () => {
    const { back, flow } = await throughProvider("nobody", "nobody's password");
    const result = await callback(back, flow);
    expect(result.session).toBeUndefined();
    expect(result.location).toBe("/login?refused=1");
    expect(result.refused).toBe(
      "nobody is not in any group that has a Fleetskew role (your groups: staff, canteen; Test SSO groups with a role: fleet-admins, fleet-approvers, fleet-technicians, everyone, emea-field, apac-field). Ask an administrator to add you to one.",
    );
    expect((await listUsers()).map((u) => u.username)).not.toContain("nobody");
    expect((await listAudit({ action: "session.login", actor: "nobody" }))[0]).toMatchObject({
      outcome: "denied",
      details: { method: "oidc", reason: "no-mapped-group" },
    });
  });

  it("keeps a disabled account out, whatever its groups", async () => {
    idp.people.set("dora", { password: "dora's password", groups: ["fleet-admins"] });
    const first = await signInThrough("dora", "dora's password");
    expect(first.session).toBeDefined();
    const dora = (await listUsers()).find((u) => u.username === "dora")!;
    await updateUser(dora.id, { disabled: true }, { actor: "test" }, () => undefined);
    expect((await whoami(request("/api/v1/session", { cookie: first.session }))).status).toBe(401);
    const again = await signInThrough("dora", "dora's password");
    expect(again.session).toBeUndefined();
    expect(again.refused).toBe("The Fleetskew account dora is disabled; ask an administrator");
  });

  it("refuses an answer whose state is not this browser's", async () => {
    const mine = await throughProvider("ada", "ada's password");
    const theirs = await throughProvider("ada", "ada's password");
    // The answer to another sign-in (e.g. an attacker's, planted in a link) with this browser's flow.
    const result = await callback(theirs.back, mine.flow);
    expect(result.session).toBeUndefined();
    expect(result.refused).toBe("The sign-in answer does not belong to the sign-in this browser started; start again");
    // And no flow at all (another browser, or after ten minutes).
    const none = await callback(mine.back, undefined);
    expect(none.refused).toMatch(/^This sign-in was not started from this browser/);
  });

  it("checks the state before showing anything the answer says: a planted error_description is never shown", async () => {
    const start = await startRoute(request("/api/v1/session/oidc?next=%2F"));
    const flow = cookieOf(start, "fleetskew_oidc");
    const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
    const planted = encodeURIComponent("Your account is locked. Call +1 555 0100 and read out your password");
    const forged = await callback(new URL(`${CALLBACK}?error=access_denied&error_description=${planted}&state=not-${state}`), flow);
    expect(forged.refused).toBe("The sign-in answer does not belong to the sign-in this browser started; start again");
    const noState = await callback(new URL(`${CALLBACK}?error=access_denied&error_description=${planted}`), flow);
    expect(noState.refused).toBe("The sign-in answer does not belong to the sign-in this browser started; start again");
    // With this browser's state it is the provider's own answer, shown printable and on one line.
    const genuine = await callback(
      new URL(`${CALLBACK}?error=access_denied&error_description=User%20cancelled%0A%E2%80%AEgnirts&state=${state}`),
      flow,
    );
    expect(genuine.refused).toBe("The provider refused the sign-in: User cancelled\\u{A}\\u{202E}gnirts");
  });

  it("refuses a provider's name that could pass for another: a Cyrillic letter in a Latin name, a zero-width character", async () => {
    for (const [name, why] of [
      ["\u0430da", "mixes letters of Cyrillic and Latin scripts"],
      ["ad\u200ba", "contains an invisible or control character"],
    ]) {
      idp.people.set(name!, { password: "lookalike password", groups: ["fleet-admins"] });
      const result = await signInThrough(name!, "lookalike password");
      expect(result.session).toBeUndefined();
      expect(result.refused).toContain(why);
      // Shown with the account's stable id, every character visible.
      expect(result.refused).toMatch(/\(its id: oidc:http:\/\/127\.0\.0\.1:\d+#(\\u\{430\}da|ad\\u\{200B\}a)\)$/);
      expect(result.refused).not.toMatch(/[^\x20-\x7E]/);
    }
    // A fullwidth spelling of an ordinary name is that name.
    idp.people.set("ｇｒａｃｅ", { password: "grace's password", groups: ["everyone"] });
    const grace = await signInThrough("ｇｒａｃｅ", "grace's password");
    expect((await (await whoami(request("/api/v1/session", { cookie: grace.session }))).json()).user.username).toBe("grace");
  });

  it("refuses an answer that names another issuer", async () => {
    const { back, flow } = await throughProvider("ada", "ada's password");
    expect(back.searchParams.get("iss")).toBe(idp.issuer);
    back.searchParams.set("iss", "https://idp.attacker.example");
    const result = await callback(back, flow);
    expect(result.session).toBeUndefined();
    expect(result.refused).toBe(
      `The sign-in answer names the issuer https://idp.attacker.example, not the configured provider ${idp.issuer}; refused`,
    );
  });

  it("refuses an ID token whose nonce is not this sign-in's", async () => {
    // A flow of the test's own making: the provider is asked with one nonce, the browser's sealed flow holds another.
    const config = await client.discovery(new URL(idp.issuer), idp.clientId, undefined, client.ClientSecretBasic(idp.clientSecret), {
      execute: [client.allowInsecureRequests],
    });
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: "openid profile",
      state,
      nonce: "the nonce the provider was given",
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    });
    const back = await idp.signIn(url.href, "ada", "ada's password");
    const flow = await sealFlow({ state, nonce: "this browser's own nonce", verifier, next: "/fleet", expiresAt: Date.now() + 60_000 });
    const result = await callback(back, `fleetskew_oidc=${flow}`);
    expect(result.session).toBeUndefined();
    expect(result.refused).toBe("The provider's ID token does not carry this sign-in's nonce (a replayed or mixed-up answer); start again");
  });

  it("signs out of Fleetskew and offers the provider's end-session endpoint", async () => {
    idp.people.get("ada")!.groups = ["fleet-approvers"];
    const { session } = await signInThrough("ada", "ada's password");
    const out = await signOutRoute(request("/api/v1/session", { method: "DELETE", cookie: session }));
    expect(out.status).toBe(200);
    const { providerSignOut } = await out.json();
    const end = new URL(providerSignOut);
    expect(`${end.origin}${end.pathname}`).toBe(`${idp.issuer}/session/end`);
    expect(end.searchParams.get("client_id")).toBe(idp.clientId);
    expect(end.searchParams.get("post_logout_redirect_uri")).toBe(`${ORIGIN}/login`);
    expect((await whoami(request("/api/v1/session", { cookie: session }))).status).toBe(401);
  });

  it("lets an admin turn password sign-in off, keeping the break-glass account they name", async () => {
    const root = await createUser(
      { username: "root", role: "admin", passwordHash: await hashPassword("root password 123") },
      { actor: null },
    );
    await addUser({ username: "local-tech", role: "technician", password: "technician password" }, actorFor(root, null));
    const password = (username: string, pw: string) =>
      passwordSignIn(request("/api/v1/session", { method: "POST", body: { username, password: pw }, origin: null }));
    const rootCookie = (await password("root", "root password 123")).headers.get("set-cookie")!.split(";")[0]!;
    const put = (body: unknown) => putSignInSettings(request("/api/v1/settings/sign-in", { method: "PUT", cookie: rootCookie, body }));
    const implicit = await put({ localSignIn: false });
    expect(implicit.status).toBe(400);
    expect((await implicit.json()).error).toMatch(/needs breakGlassAccount/);
    const notAdmin = await put({ localSignIn: false, breakGlassAccount: "local-tech" });
    expect([notAdmin.status, (await notAdmin.json()).error]).toEqual([
      409,
      "The break-glass account must be an active local admin account; local-tech is not",
    ]);
    const saved = await put({ localSignIn: false, breakGlassAccount: "root" });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toMatchObject({
      localSignIn: false,
      breakGlassAccount: "root",
      oidc: { name: "Test SSO", issuer: idp.issuer },
    });
    expect(JSON.stringify(await (await put({ localSignIn: false, breakGlassAccount: "root" })).json())).not.toContain(idp.clientSecret);
    const refused = await password("local-tech", "technician password");
    expect([refused.status, (await refused.json()).error]).toEqual([
      403,
      "Sign-in with a password is turned off here; use single sign-on (the button above the form)",
    ]);
    expect((await password("root", "root password 123")).status).toBe(200);
    expect((await put({ localSignIn: true })).status).toBe(200);
    expect((await password("local-tech", "technician password")).status).toBe(200);
    // A single sign-on account has no password to guess.
    expect((await password("ada", "anything at all")).status).toBe(401);
  });

  it("with password sign-in off, answers every name alike and ends the password sessions of everyone but the break-glass account", async () => {
    let address = 0;
    const password = (username: string, pw: string) =>
      passwordSignIn(
        request("/api/v1/session", {
          method: "POST",
          body: { username, password: pw },
          origin: null,
          // A fresh address each time, so the per-address throttle stays out of the comparison.
          headers: { "x-fleetskew-client-ip": `192.0.2.${++address}` },
        }),
      );
    const cookie = (response: Response) => response.headers.get("set-cookie")!.split(";")[0]!;
    const rootSession = cookie(await password("root", "root password 123"));
    const techSession = cookie(await password("local-tech", "technician password"));
    const { session: adaSession } = await signInThrough("ada", "ada's password");
    const put = (body: unknown) => putSignInSettings(request("/api/v1/settings/sign-in", { method: "PUT", cookie: rootSession, body }));
    expect((await put({ localSignIn: false, breakGlassAccount: "root" })).status).toBe(200);

    // Turning it off ended the technician's password session, not the break-glass admin's nor a single sign-on one.
    const signedIn = async (c: string) => (await whoami(request("/api/v1/session", { cookie: c }))).status;
    expect([await signedIn(techSession), await signedIn(rootSession), await signedIn(adaSession!)]).toEqual([401, 200, 200]);
    const ended = (await listAudit({ action: "session.logout", limit: 5 })).find((e) => e.targetId === "password");
    // Ours and the one the test before left open.
    expect(ended?.summary).toBe("ended 2 password sessions: password sign-in turned off (except root, the break-glass account)");

    // The break-glass name with a wrong password, another account with its right password, a single
    // sign-on account and a name nobody has: one answer, byte for byte, and each checked by scrypt.
    const tries: [string, string][] = [
      ["root", "not the root password"],
      ["local-tech", "technician password"],
      ["ada", "anything at all"],
      ["no-such-person", "a password of twelve"],
    ];
    const answers: string[] = [];
    const times: number[] = [];
    for (const [username, pw] of tries) {
      const started = performance.now();
      const response = await password(username, pw);
      times.push(performance.now() - started);
      answers.push(`${response.status} ${response.headers.get("retry-after")} ${await response.text()}`);
    }
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toBe(
      '403 null {"error":"Sign-in with a password is turned off here; use single sign-on (the button above the form)"}',
    );
    // No name has a shortcut past the password hash: none answers in a fraction of the break-glass account's time.
    console.log(`sign-in refusals with password sign-in off: ${times.map((t) => `${t.toFixed(0)} ms`).join(", ")}`);
    for (const t of times) expect(t).toBeGreaterThan(Math.max(...times) / 4);
    // The break-glass account's right password still signs in.
    expect((await password("root", "root password 123")).status).toBe(200);
    expect((await put({ localSignIn: true })).status).toBe(200);
  });
});
