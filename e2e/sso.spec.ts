/**
 * Single sign-on in the browser, against a console of its own (e2e/console.ts) configured with a
 * real OpenID provider (oidc-provider, server/testing/oidcProvider.ts) and with oauth-proxy trust
 * for one peer address, a simulated fleet of its own to acknowledge a boot image on.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { startOpenShiftUsersApi, type OpenShiftUsersApi } from "../server/testing/openshiftUsers";
import { startTestProvider, type TestProvider } from "../server/testing/oidcProvider";
import { freePort, startConsole, type StartedConsole } from "./console";
import { hydrated, snap } from "./helpers";

test.describe.configure({ mode: "serial" });

let app: StartedConsole;
let idp: TestProvider;
let openshift: OpenShiftUsersApi;
let simulator: ChildProcess;
let workDir: string;
const CLUSTER = "sso-east";
const TECH = { username: "sso-tech", password: "sso technician password", role: "technician" };
/** The only address whose oauth-proxy headers the console believes: a loopback address the browser never uses. */
const PROXY_PEER = "127.0.0.2";

async function startSimulator(kubeconfig: string): Promise<ChildProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ["node_modules/tsx/dist/cli.mjs", "scripts/simulator.ts", "--clusters", "2", "--port", String(port), "--kubeconfig", kubeconfig],
    { cwd: path.resolve(__dirname, ".."), stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("kubeconfig with one context per cluster written")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`the simulator exited (${code}): ${out}`)));
  });
  return child;
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  workDir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-sso-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  idp = await startTestProvider({ redirectUris: [`${url}/api/v1/session/oidc/callback`], postLogoutRedirectUris: [`${url}/login`] });
  idp.people.set("ada", { password: "ada's password", groups: ["fleet-approvers"], name: "Ada Approver" });
  idp.people.set("nemo", { password: "nemo's password", groups: ["staff"] });
  openshift = await startOpenShiftUsersApi();
  simulator = await startSimulator(path.join(workDir, "fleet.kubeconfig"));
  app = await startConsole(
    {
      FLEETSKEW_PUBLIC_URL: url,
      FLEETSKEW_OIDC_ISSUER: idp.issuer,
      FLEETSKEW_OIDC_CLIENT_ID: idp.clientId,
      FLEETSKEW_OIDC_CLIENT_SECRET: idp.clientSecret,
      FLEETSKEW_OIDC_NAME: "Test SSO",
      FLEETSKEW_OIDC_ROLES: "fleet-admins=admin,fleet-approvers=approver",
      FLEETSKEW_AUTH_PROXY: "openshift",
      FLEETSKEW_AUTH_PROXY_PEERS: PROXY_PEER,
      FLEETSKEW_AUTH_PROXY_ROLES: "fleet-approvers=approver",
      FLEETSKEW_OPENSHIFT_API_URL: openshift.url,
      FLEETSKEW_SWEEP_INTERVAL_SECONDS: "2",
    },
    { port },
  );
});

test.afterAll(async () => {
  await app?.stop();
  simulator?.kill("SIGTERM");
  await idp?.close();
  await openshift?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** Signs `request` in with a local password (the admin, or a local technician). */
async function signInLocally(request: APIRequestContext, username: string, password: string) {
  const response = await request.post(`${app.url}/api/v1/session`, { data: { username, password }, headers: { origin: app.url } });
  expect(response.status()).toBe(200);
}

test("an approver signs in through the OpenID provider and approves a technician's acknowledgement", async ({
  page,
  playwright,
}, testInfo) => {
  test.setTimeout(120_000);
  // The admin registers the cluster and a local technician requests the acknowledgement.
  const admin = await playwright.request.newContext({ baseURL: app.url, extraHTTPHeaders: { origin: app.url } });
  await signInLocally(admin, "admin", app.adminPassword);
  const kubeconfig = readFileSync(path.join(workDir, "fleet.kubeconfig"), "utf8");
  expect(
    (
      await admin.post("/api/v1/clusters", {
        data: { name: CLUSTER, source: { type: "kubeconfig", kubeconfig, context: "prod-east-422" } },
      })
    ).status(),
  ).toBe(201);
  expect((await admin.post("/api/v1/users", { data: TECH })).status()).toBe(201);
  const tech = await playwright.request.newContext({ baseURL: app.url, extraHTTPHeaders: { origin: app.url } });
  await signInLocally(tech, TECH.username, TECH.password);
  let id = "";
  // Accepted once the collector has read the cluster.
  await expect(async () => {
    const requested = await tech.post("/api/v1/acknowledgements", {
      data: {
        cluster: CLUSTER,
        mode: "RHCOSVersion",
        rhcosVersion: "9.6.20250701-0",
        evidence: "Worker MachineSets moved to ami-0a1b2c3d (RHCOS 9.6.20250701-0), change CHG-2001.",
      },
    });
    expect(requested.status(), await requested.text()).toBe(201);
    id = (await requested.json()).id;
  }).toPass({ timeout: 45_000 });

  // The approver has no local account: single sign-on only.
  await page.goto(`${app.url}/acknowledgements`);
  await expect(page).toHaveURL(/\/login\?next=/);
  await snap(page, testInfo, "80-sso-sign-in-page");
  await page.getByRole("link", { name: "Sign in with Test SSO" }).click();
  await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
  await page.getByLabel("Username").fill("ada");
  await page.getByLabel("Password").fill("ada's password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${app.url}/acknowledgements`);
  await expect(page.getByRole("banner")).toContainText("ada");
  await expect(page.getByRole("banner")).toContainText("approver");

  await hydrated(page);
  const pending = page.locator(`li[data-request="${id}"]`);
  await pending.getByLabel("Comment").fill("Checked the AMI ids; signed in through single sign-on");
  await pending.getByRole("button", { name: "Approve" }).click();
  await expect(pending).toHaveAttribute("data-status", "applied", { timeout: 30_000 });
  await snap(page, testInfo, "81-sso-approved");

  // The audit log says how each person signed in and who approved.
  const events = await (await admin.get("/api/v1/audit?action=acknowledgement.approve")).json();
  expect(events.events[0]).toMatchObject({ actor: "ada", role: "approver" });
  const logins = await (await admin.get("/api/v1/audit?action=session.login&actor=ada")).json();
  expect(logins.events[0]).toMatchObject({ outcome: "success", details: { method: "oidc", group: "fleet-approvers" } });

  // Signing out ends the Fleetskew session and offers the provider's.
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login\?signed-out=oidc/);
  const providerLink = page.getByRole("link", { name: "Sign out of Test SSO too" });
  await expect(providerLink).toHaveAttribute("href", new RegExp(`^${idp.issuer}/session/end\\?`));
  await admin.dispose();
  await tech.dispose();
});

test("a member of no mapped group is refused, with the reason on the sign-in page", async ({ page }, testInfo) => {
  await page.goto(`${app.url}/login`);
  await page.getByRole("link", { name: "Sign in with Test SSO" }).click();
  await page.getByLabel("Username").fill("nemo");
  await page.getByLabel("Password").fill("nemo's password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${app.url}/login?refused=1`);
  await expect(page.getByRole("alert").filter({ hasText: "Sign-in refused" })).toHaveText(
    "Sign-in refused: nemo is not in any group that has a Fleetskew role (your groups: staff; Test SSO groups with a role: fleet-admins, fleet-approvers). Ask an administrator to add you to one.",
  );
  await snap(page, testInfo, "82-sso-refused");
  // Still signed out.
  await page.goto(`${app.url}/fleet`);
  await expect(page).toHaveURL(/\/login\?next=/);
});

/** GET /api/v1/session over a connection from `localAddress`, carrying oauth-proxy's headers. */
function whoamiFrom(localAddress: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${app.url}/api/v1/session`, { localAddress, headers }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("oauth-proxy's identity headers are believed from the configured proxy address only", async () => {
  openshift.tokens.set("sha256~olga", { name: "olga", groups: ["fleet-approvers"] });
  const headers = {
    "x-forwarded-user": "olga",
    "x-forwarded-email": "olga@cluster.local",
    "x-forwarded-access-token": "sha256~olga",
  };
  // From any other peer (here 127.0.0.1, the browser's address), even claiming to be the proxy, nothing.
  const ignored = await whoamiFrom("127.0.0.1", { ...headers, "x-forwarded-for": PROXY_PEER });
  expect([ignored.status, JSON.parse(ignored.body)]).toEqual([401, { error: "Sign in first" }]);
  expect(openshift.requests()).toBe(0);
  // From the proxy's address: olga, with the role her OpenShift groups give.
  const trusted = await whoamiFrom(PROXY_PEER, headers);
  expect(trusted.status).toBe(200);
  expect(JSON.parse(trusted.body).user).toMatchObject({ username: "olga", role: "approver", authSource: "openshift" });
});

test("an admin turns password sign-in off, keeping the break-glass account they name", async ({ page, playwright }, testInfo) => {
  await page.goto(`${app.url}/login`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(app.adminPassword);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(`${app.url}/fleet`);
  await page.goto(`${app.url}/admin/settings`);
  const signIn = page.getByRole("form", { name: "Local sign-in" });
  await expect(page.getByText("Test SSO (")).toContainText("set by the environment");
  // The environment sets the provider, so the admin page offers no form to change it.
  await expect(page.getByRole("form", { name: "OpenID provider" })).toHaveCount(0);
  await signIn.getByLabel("Allow sign-in with a local password").uncheck();
  await signIn.getByLabel(/Break-glass account/).fill("admin");
  await signIn.getByRole("button", { name: "Save sign-in settings" }).click();
  await expect(signIn.getByRole("status")).toHaveText("Saved.");
  await snap(page, testInfo, "83-sso-local-sign-in-off");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  // The password form is folded away as the break-glass way in.
  await expect(page.getByLabel("Username")).toBeHidden();
  await page.getByText("Break-glass sign-in with a password").click();
  await expect(page.getByLabel("Username")).toBeVisible();
  await snap(page, testInfo, "84-sso-break-glass");

  const api = await playwright.request.newContext({ baseURL: app.url, extraHTTPHeaders: { origin: app.url } });
  const refused = await api.post("/api/v1/session", { data: { username: TECH.username, password: TECH.password } });
  expect([refused.status(), (await refused.json()).error]).toEqual([
    403,
    "Sign-in with a password is turned off here; use single sign-on (the button above the form)",
  ]);
  expect((await api.post("/api/v1/session", { data: { username: "admin", password: app.adminPassword } })).status()).toBe(200);
  await api.dispose();
});
