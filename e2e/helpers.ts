import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { parse } from "yaml";

export const ADMIN_PASSWORD = process.env.FLEETSKEW_E2E_ADMIN_PASSWORD!;

/** Screenshots are kept under e2e/.artifacts (and attached to the HTML report) for people to look at. */
export async function snap(page: Page, testInfo: TestInfo, name: string) {
  const dir = path.join(__dirname, ".artifacts");
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

export async function signIn(page: Page, username: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);
}

/** Waits until React has hydrated a freshly loaded page: a click before that reaches no handler. */
export async function hydrated(page: Page) {
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
}

/** Signs the API request context in as the admin. */
export async function adminApi(request: APIRequestContext) {
  const login = await request.post("/api/v1/session", { data: { username: "admin", password: ADMIN_PASSWORD } });
  expect(login.ok()).toBe(true);
}

/** The simulated fleet the read-only specs use: nothing changes its clusters. */
export const SHARED_FLEET = () => process.env.FLEETSKEW_E2E_KUBECONFIG!;
/** A second simulated fleet for the workflows, each on a cluster of its own, so no spec sees another's writes. */
export const WORKFLOW_FLEET = () => process.env.FLEETSKEW_E2E_WORKFLOW_KUBECONFIG!;

/**
 * Registers simulated clusters through the API unless they are registered already (signs in as
 * admin): a name alone is that context of the shared fleet; `{ name, context, fleet }` registers a
 * context of another fleet's kubeconfig under a name of its own.
 */
export async function register(request: APIRequestContext, clusters: (string | { name: string; context: string; fleet: string })[]) {
  await adminApi(request);
  for (const cluster of clusters) {
    const { name, context, fleet } = typeof cluster === "string" ? { name: cluster, context: cluster, fleet: SHARED_FLEET() } : cluster;
    if ((await request.get(`/api/v1/clusters/${name}`)).status() !== 404) continue;
    const kubeconfig = readFileSync(fleet, "utf8");
    const created = await request.post("/api/v1/clusters", { data: { name, source: { type: "kubeconfig", kubeconfig, context } } });
    expect(created.status()).toBe(201);
  }
}

/** Creates a user unless one by that name exists (needs an admin session on `request`). */
export async function ensureUser(request: APIRequestContext, user: { username: string; password: string; role: string }) {
  const created = await request.post("/api/v1/users", { data: user });
  expect([201, 409]).toContain(created.status());
}

export async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
}

/** A simulated cluster's API as a kubeconfig the simulator wrote names it: URL and admin token. */
export function simulatedCluster(context: string, fleet = SHARED_FLEET()): { server: string; token: string } {
  const config = parse(readFileSync(fleet, "utf8")) as {
    clusters: { name: string; cluster: { server: string } }[];
    users: { name: string; user: { token: string } }[];
    contexts: { name: string; context: { cluster: string; user: string } }[];
  };
  const found = config.contexts.find((c) => c.name === context)!.context;
  return {
    server: config.clusters.find((c) => c.name === found.cluster)!.cluster.server,
    token: config.users.find((u) => u.name === found.user)!.user.token,
  };
}

/** Sets a simulated node's allocatable ephemeral storage through the cluster's own API (a disk filling up). */
export async function setNodeDisk(request: APIRequestContext, cluster: { context: string; fleet: string }, node: string, quantity: string) {
  const { server, token } = simulatedCluster(cluster.context, cluster.fleet);
  const response = await request.patch(`${server}/api/v1/nodes/${node}/status`, {
    headers: { authorization: `Bearer ${token}`, "content-type": "application/merge-patch+json" },
    data: JSON.stringify({ status: { allocatable: { "ephemeral-storage": quantity } } }),
    ignoreHTTPSErrors: true,
  });
  expect(response.status()).toBe(200);
}
