/**
 * An admin registers a simulated ACM hub in the console and watches its clusters arrive: each
 * managed cluster followed or not with its reason, the followed ones in the fleet view with their
 * cluster sets as labels. On a console of its own, so the hub's clusters meet no other spec's.
 */
import { expect, test, type Page } from "@playwright/test";
import { newMember } from "../server/simulator/hub/scenario";
import { startHubSimulator, type HubRegistration, type HubSimulator } from "../server/simulator/hub/server";
import { startConsole, type StartedConsole } from "./console";
import { hydrated, snap } from "./helpers";

let app: StartedConsole;
let hub: HubSimulator;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  [hub, app] = await Promise.all([
    startHubSimulator({ clusters: 12, seed: 31, permissionDelayMs: 300 }),
    startConsole({ FLEETSKEW_HUB_RESYNC_SECONDS: "30" }),
  ]);
});

test.afterAll(async () => {
  await app?.stop();
  await hub?.close();
});

/** Signs in as the admin of this spec's console and opens Admin → Hubs, ready for clicks. */
async function openHubsAsAdmin(page: Page) {
  await page.goto(`${app.url}/login`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(app.adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);
  await page.goto(`${app.url}/admin/hubs`);
  await hydrated(page);
}

/** Fills what every hub registration takes: name, hub API and CA, reader token, proxy URL and CA. */
async function fillHubForm(page: Page, name: string, r: HubRegistration) {
  const form = page.getByRole("form", { name: "Register an ACM hub" });
  await form.getByLabel("Hub name").fill(name);
  await form.getByLabel("Hub API URL").fill(r.hubApiUrl);
  await form.getByLabel("Hub CA (PEM)").fill(r.ca);
  await form.getByLabel("Reader token").fill(r.readerToken);
  await form.getByLabel("Cluster-proxy URL").fill(r.proxyUrl);
  await form.getByLabel("Cluster-proxy CA (PEM)").fill(r.proxyCa);
  return form;
}

test("an admin registers an ACM hub and sees its clusters arrive, with their cluster sets as labels", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(180_000);
  const r = hub.registration();
  await openHubsAsAdmin(page);
  await expect(page.getByText("No hub is registered.")).toBeVisible();
  const form = await fillHubForm(page, "hub-east", { ...r, readerToken: "sha256~not-the-reader-token" });
  await form.getByLabel("Proxy token").fill(r.proxyToken);
  await form.getByLabel("User on the managed clusters").fill(r.proxyImpersonatedUser);
  // A wrong token is refused with what went wrong, and nothing is saved.
  await form.getByRole("button", { name: "Register hub" }).click();
  await expect(form.getByRole("alert")).toContainText("the hub refused the reader token (401)");
  await expect(page.getByText("No hub is registered.")).toBeVisible();
  await form.getByLabel("Reader token").fill(r.readerToken);
  await snap(page, testInfo, "hub-01-form");
  await form.getByRole("button", { name: "Register hub" }).click();

  // The hub's clusters arrive: the first sync asks the hub for Fleetskew's permissions, the hub applies them.
  const members = page.getByRole("region", { name: "Managed clusters of hub-east" });
  await expect(page.getByTestId("hub-counts-hub-east")).toContainText("12 managed · 9 followed · 3 not followed", { timeout: 60_000 });
  const row = (name: string) => members.locator(`tr[data-member="${name}"]`);
  await expect(row("eks-analytics")).toContainText("Not OpenShift");
  await expect(row("eks-analytics")).toContainText("it runs EKS, not OpenShift");
  await expect(row("hcp-tenant-1")).toContainText("Hosted control plane");
  await expect(row("edge-no-proxy")).toContainText("Proxy add-on unavailable");
  await expect(row("local-cluster")).toContainText("Followed");
  // What the hub's ManagedClusterInfo says, beside Fleetskew's own reading, and how the clusters are reached.
  await expect(row("local-cluster")).toContainText(/4\.\d+\.\d+/);
  await expect(row("local-cluster")).toContainText(/\d+\/\d+ nodes ready/);
  await expect(page.locator('li[data-hub="hub-east"]')).toContainText("clusters reached by impersonating the proxy service account");
  await snap(page, testInfo, "hub-02-clusters");

  // The followed clusters of one set, in the fleet view, with the set as a label.
  const detail = (await (
    await request.get(`${app.url}/api/v1/hubs/hub-east`, {
      headers: { cookie: (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ") },
    })
  ).json()) as { clusters: { name: string; clusterSet: string | null; eligibility: string }[] };
  const sets = new Map<string, string[]>();
  for (const c of detail.clusters.filter((c) => c.eligibility === "eligible"))
    sets.set(c.clusterSet!, [...(sets.get(c.clusterSet!) ?? []), c.name]);
  const [set, names] = [...sets.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
  await page.goto(`${app.url}/fleet?hub=hub-east&clusterSet=${encodeURIComponent(set)}&sort=name`);
  const table = page.getByRole("table", { name: "Clusters" });
  await expect(page.getByText(`${names.length} of 9 clusters`)).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => table.locator("a[href^='/clusters/']").allTextContents()).toEqual([...names].sort());
  await expect(table.getByText(`cluster.open-cluster-management.io/clusterset=${set}`).first()).toBeVisible();
  // Swept through the hub's proxy: a version read from the cluster itself.
  await expect(table.getByRole("row").nth(1)).toContainText(/4\.\d+\.\d+/, { timeout: 60_000 });
  await snap(page, testInfo, "hub-03-fleet-by-cluster-set");
});

test("an admin registers a hub older than MCE 2.9: its clusters are reached with a ManagedServiceAccount each", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  const names = ["old-store-1", "old-store-2", "old-store-3"];
  const older = await startHubSimulator({
    mceVersion: "2.7.3",
    permissionDelayMs: 300,
    serviceAccountDelayMs: 300,
    members: (clusterUrl) => names.map((n, i) => newMember(n, 41, clusterUrl, 960_000 + i)),
  });
  try {
    const r = older.registration();
    await openHubsAsAdmin(page);
    const form = await fillHubForm(page, "hub-old", r);
    // Asking for impersonation on this hub is refused with the reason.
    await form.getByLabel("Impersonate a proxy service account").check();
    await form.getByLabel("Proxy token").fill(r.proxyToken);
    await form.getByLabel("User on the managed clusters").fill(r.proxyImpersonatedUser);
    await form.getByRole("button", { name: "Register hub" }).click();
    await expect(form.getByRole("alert")).toContainText("the hub runs MCE 2.7.3");
    // One account per cluster instead: no proxy token asked for.
    await form.getByLabel("A ManagedServiceAccount per cluster").check();
    await expect(form.getByLabel("Proxy token")).toHaveCount(0);
    await snap(page, testInfo, "hub-04-older-hub-form");
    await form.getByRole("button", { name: "Register hub" }).click();

    const hubItem = page.locator('li[data-hub="hub-old"]');
    await expect(hubItem).toContainText("clusters reached with a ManagedServiceAccount each");
    await expect(page.getByTestId("hub-counts-hub-old")).toContainText("3 managed · 3 followed", { timeout: 60_000 });
    const members = page.getByRole("region", { name: "Managed clusters of hub-old" });
    await expect(members.locator('tr[data-member="old-store-1"]')).toContainText("Followed");
    await snap(page, testInfo, "hub-05-older-hub-clusters");
    // Swept through the proxy with the account's token: the cluster page shows a version read from the cluster.
    await page.goto(`${app.url}/fleet?hub=hub-old&sort=name`);
    const table = page.getByRole("table", { name: "Clusters" });
    await expect(table.getByRole("row").nth(1)).toContainText(/4\.\d+\.\d+/, { timeout: 60_000 });
  } finally {
    await older.close();
  }
});
