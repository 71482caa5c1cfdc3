import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as callbackRoute } from "@/app/api/v1/session/oidc/callback/route";
import { GET as startRoute } from "@/app/api/v1/session/oidc/route";
import { GET as whoami } from "@/app/api/v1/session/route";
import { DELETE as removeOidc, PUT as putOidc } from "@/app/api/v1/settings/oidc/route";
import { GET as getSignIn } from "@/app/api/v1/settings/sign-in/route";
import { readConfig } from "../config/env";
import { resealAll } from "../runtime/secretKeys";
import { listAudit } from "../store/audit";
import { sealedSummary } from "../store/sealed";
import { readSetting } from "../store/settings";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { startTestProvider, type TestProvider } from "../testing/oidcProvider";
import { ORIGIN, request, sessionCookie } from "../testing/routes";
import { effectiveOidc } from "./oidcSettings";

/** The OpenID provider set on the admin page: its secret sealed, never shown, the environment winning. */
useMigratedDatabase();
let idp: TestProvider;
let admin: string;

beforeAll(async () => {
  idp = await startTestProvider({ redirectUris: [`${ORIGIN}/api/v1/session/oidc/callback`] });
  idp.people.set("ada", { password: "ada's password", groups: ["fleet-approvers"] });
  Object.assign(process.env, { FLEETSKEW_SECRET_KEY: randomBytes(32).toString("base64"), FLEETSKEW_PUBLIC_URL: ORIGIN });
  admin = await sessionCookie(await createUser({ username: "root", role: "admin", passwordHash: "scrypt$unused" }, { actor: null }));
});
afterAll(() => idp?.close());

const put = (body: unknown) => putOidc(request("/api/v1/settings/oidc", { method: "PUT", cookie: admin, body }));

async function signInAsAda() {
  const start = await startRoute(request("/api/v1/session/oidc"));
  expect(start.status).toBe(303);
  const flow = start.headers.getSetCookie()[0]!.split(";")[0]!;
  const back = await idp.signIn(start.headers.get("location")!, "ada", "ada's password");
  const done = await callbackRoute(request(`/api/v1/session/oidc/callback${back.search}`, { cookie: flow, origin: null }));
  const session = done.headers
    .getSetCookie()
    .find((c) => c.startsWith("fleetskew_session="))!
    .split(";")[0]!;
  return (await (await whoami(request("/api/v1/session", { cookie: session }))).json()).user;
}

describe("the OpenID provider set on the admin page", () => {
  it("explains a bad provider in the page's words and stores nothing", async () => {
    expect((await startRoute(request("/api/v1/session/oidc"))).status).toBe(404);
    const http = await put({ issuer: "http://sso.example.com", clientId: "fleetskew", roles: "fleet-approvers=approver" });
    expect([http.status, (await http.json()).error]).toEqual([
      400,
      "issuer must use https:// (http:// is accepted only on loopback, for tests and local trials)",
    ]);
    const roles = await put({ issuer: idp.issuer, clientId: "fleetskew", roles: "fleet-approvers=boss" });
    expect((await roles.json()).error).toBe(
      'roles gives group fleet-approvers the role "boss"; roles are viewer, technician, approver, admin',
    );
    expect(await readSetting("oidc")).toBeNull();
  });

  it("keeps the client secret sealed, shows it nowhere, and signs people in with it", async () => {
    const saved = await put({
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      roles: "fleet-approvers=approver",
      name: "Company SSO",
    });
    expect(saved.status).toBe(200);
    const view = await saved.json();
    expect(view.oidc).toMatchObject({ source: "admin", name: "Company SSO", clientSecretSet: true, issuer: idp.issuer });
    expect(JSON.stringify(view)).not.toContain(idp.clientSecret);
    const stored = JSON.stringify(await readSetting("oidc"));
    expect(stored).not.toContain(idp.clientSecret);
    const [event] = await listAudit({ action: "settings.update" });
    expect(event!.details).toMatchObject({ oidc: { issuer: idp.issuer, clientSecret: "set" } });
    expect(JSON.stringify(event)).not.toContain(idp.clientSecret);
    expect(JSON.stringify(event)).not.toContain((JSON.parse(stored) as { clientSecret: string }).clientSecret);
    expect(await signInAsAda()).toMatchObject({ username: "ada", role: "approver", authSource: "oidc" });
  });

  it("is counted and re-sealed with the other secrets, and a change without a secret keeps it", async () => {
    expect((await sealedSummary()).settings).toBe(1);
    const before = (await readSetting("oidc")) as { clientSecret: string };
    expect((await resealAll()).settings).toBe(1);
    expect(((await readSetting("oidc")) as { clientSecret: string }).clientSecret).not.toBe(before.clientSecret);
    expect((await put({ issuer: idp.issuer, clientId: idp.clientId, roles: "fleet-approvers=admin", name: "Company SSO" })).status).toBe(
      200,
    );
    expect(await signInAsAda()).toMatchObject({ username: "ada", role: "admin" });
  });

  it("yields to the environment, which wins", async () => {
    const env = readConfig({
      FLEETSKEW_PUBLIC_URL: ORIGIN,
      FLEETSKEW_OIDC_ISSUER: "https://sso.example.com",
      FLEETSKEW_OIDC_CLIENT_ID: "from-env",
      FLEETSKEW_OIDC_ROLES: "ops=admin",
    });
    expect(await effectiveOidc(env)).toMatchObject({ source: "environment", oidc: { clientId: "from-env" } });
    expect(await effectiveOidc(readConfig({ FLEETSKEW_PUBLIC_URL: ORIGIN }))).toMatchObject({ source: "admin" });
  });

  it("sends the browser back to the sign-in page, saying so, when the provider cannot be reached", async () => {
    const gone = "http://127.0.0.1:9"; // the discard port: nothing answers
    expect((await put({ issuer: gone, clientId: "fleetskew", roles: "fleet-approvers=approver" })).status).toBe(200);
    const start = await startRoute(request("/api/v1/session/oidc"));
    expect([start.status, start.headers.get("location")]).toEqual([303, "/login?refused=1"]);
    expect(decodeURIComponent(start.headers.getSetCookie()[0]!.split(";")[0]!.split("=")[1]!)).toMatch(
      /^Could not reach the sign-in provider at http:\/\/127\.0\.0\.1:9: /,
    );
  });

  it("is removed by an admin, and then offers no sign-in", async () => {
    expect((await removeOidc(request("/api/v1/settings/oidc", { method: "DELETE", cookie: admin }))).status).toBe(200);
    expect((await (await getSignIn(request("/api/v1/settings/sign-in", { cookie: admin }))).json()).oidc).toBeNull();
    expect((await startRoute(request("/api/v1/session/oidc"))).status).toBe(404);
    expect((await sealedSummary()).settings).toBe(0);
  });
});
