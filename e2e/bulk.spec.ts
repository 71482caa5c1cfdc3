import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { parse, stringify } from "yaml";
import { adminApi, ADMIN_PASSWORD, signIn, snap } from "./helpers";

const BULK_FLEET = process.env.FLEETSKEW_E2E_BULK_KUBECONFIG!;

type Kubeconfig = {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
};

/** A port nothing listens on, for a context whose API cannot be reached. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * 50 contexts from the bulk simulator's kubeconfig: 46 good ones (under "bulk/<cluster>", so their
 * names meet no other spec's), one with a wrong token, one whose API cannot be reached, one whose
 * user runs a program (exec, not accepted) and prod-east, which the admin leaves out. The good ones
 * are generated clusters only ("<name>-0042"): the fixed clusters every simulated fleet holds
 * (prod-east, edge-registryless, ...) have the same ClusterVersion spec.clusterID in every fleet, so
 * once another spec has registered one, bulk registration rightly reports it as already registered.
 */
async function fiftyContexts(): Promise<{ file: string; good: string[] }> {
  const config = parse(readFileSync(BULK_FLEET, "utf8")) as Kubeconfig;
  const generated = config.contexts.map((c) => c.name).filter((n) => /-\d{4}$/.test(n));
  const good = generated.slice(0, 46);
  const spare = generated[46]!;
  const server = config.clusters.find((c) => c.name === spare)!.cluster;
  config.clusters.push({ name: "nowhere", cluster: { ...server, server: `https://127.0.0.1:${await closedPort()}` } });
  config.users.push({ name: "wrong", user: { token: "sha256~this-token-was-revoked" } });
  config.users.push({ name: "sso", user: { exec: { apiVersion: "client.authentication.k8s.io/v1", command: "oc-sso-login" } } });
  config.contexts = [
    ...good.map((name) => ({ name: `bulk/${name}`, context: { cluster: name, user: `${name}-user` } })),
    { name: "bulk/wrong-token", context: { cluster: spare, user: "wrong" } },
    { name: "bulk/unreachable", context: { cluster: "nowhere", user: `${spare}-user` } },
    { name: "bulk/sso", context: { cluster: "prod-east", user: "sso" } },
    { name: "bulk/prod-east", context: { cluster: "prod-east", user: "prod-east-user" } },
  ];
  const file = path.join(__dirname, ".artifacts", "bulk-50-contexts.kubeconfig");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, stringify(config), { mode: 0o600 });
  return { file, good };
}

async function removeBulkClusters(request: APIRequestContext) {
  const { clusters } = (await (await request.get("/api/v1/clusters?limit=1000")).json()) as { clusters: { name: string }[] };
  for (const c of clusters.filter((c) => c.name.startsWith("bulk-"))) await request.delete(`/api/v1/clusters/${c.name}`);
}

test("an admin uploads a kubeconfig with 50 contexts, selects 48, watches the progress and sees the two failing ones with their reasons", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(180_000);
  await expect.poll(() => existsSync(BULK_FLEET)).toBe(true);
  const { file, good } = await fiftyContexts();
  // A retried run starts from the same place: nothing of a first attempt stays registered.
  await adminApi(request);
  await removeBulkClusters(request);

  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/admin/clusters");
  const bulk = page.getByRole("region", { name: "Register many clusters" });
  await bulk.getByLabel("Kubeconfig with many contexts").setInputFiles(file);

  // Every context, with what it would become.
  const rows = bulk.locator("tbody tr[data-context]");
  await expect(rows).toHaveCount(50);
  const sso = bulk.locator('tr[data-context="bulk/sso"]');
  await expect(sso).toContainText("exec");
  await expect(sso).toContainText('Not accepted: user "sso" gets its credentials from a program');
  await expect(sso.getByRole("checkbox")).toBeDisabled();
  await expect(bulk.locator(`tr[data-context="bulk/${good[0]}"]`)).toContainText(`bulk-${good[0]}`);
  await expect(bulk.getByTestId("bulk-selected")).toHaveText("49 of 50 contexts selected");

  // None, then all, then leave prod-east out: 48.
  await bulk.getByRole("button", { name: "Select none" }).click();
  await expect(bulk.getByTestId("bulk-selected")).toHaveText("0 of 50 contexts selected");
  await bulk.getByRole("button", { name: "Select all" }).click();
  await bulk.getByRole("checkbox", { name: "Register bulk/prod-east", exact: true }).uncheck();
  await expect(bulk.getByTestId("bulk-selected")).toHaveText("48 of 50 contexts selected");
  await bulk.getByLabel("Labels for every cluster").fill("onboarded=bulk");
  await snap(page, testInfo, "bulk-01-preview");

  await bulk.getByRole("button", { name: "Register 48 clusters" }).click();
  const progress = bulk.getByRole("progressbar", { name: /Registering|Registration finished/ });
  await expect(progress).toBeVisible();
  await expect(progress).toHaveAttribute("aria-valuemax", "48");
  await snap(page, testInfo, "bulk-02-progress");

  // The bar moves as items finish: some state between none and all is shown on the way.
  const seen = new Set<number>();
  await expect
    .poll(
      async () => {
        seen.add(Number(await progress.getAttribute("aria-valuenow")));
        return seen.has(48);
      },
      { timeout: 120_000, intervals: [200] },
    )
    .toBe(true);
  expect([...seen].some((n) => n > 0 && n < 48)).toBe(true);
  await expect(bulk.getByText("Registration finished")).toBeVisible();
  await expect(progress).toHaveAttribute("aria-valuenow", "48");
  await expect(bulk.getByTestId("bulk-progress-text")).toHaveText("48 of 48 done: 46 registered, 0 already registered, 2 failed");
  const failed = bulk.getByRole("list", { name: "Failed (2)" });
  await expect(failed.getByRole("listitem")).toHaveCount(2);
  await expect(failed.locator('li[data-item="bulk/wrong-token"]')).toContainText(
    /Credentials refused: the cluster refused the credentials \(401\)/,
  );
  await expect(failed.locator('li[data-item="bulk/unreachable"]')).toContainText(
    "Unreachable: could not reach a Kubernetes API server at this address",
  );
  await expect(bulk.getByRole("list", { name: "Registered (46)" }).getByRole("listitem")).toHaveCount(46);
  await snap(page, testInfo, "bulk-03-results");

  // The job is in the address: a reload shows its results again.
  await expect(page).toHaveURL(/registration-job=[0-9a-f-]{36}/);
  await page.reload();
  await expect(bulk.getByRole("list", { name: "Failed (2)" }).getByRole("listitem")).toHaveCount(2);

  // The clusters are registered like any other, with the labels given.
  const row = page.locator(`tr[data-cluster="bulk-${good[0]}"]`);
  await expect(row).toContainText("onboarded=bulk");
  await expect(row).toContainText("Reachable");

  // The same kubeconfig again: what was registered is now shown as registered, and not selected again.
  await bulk.getByRole("button", { name: "Back to the contexts" }).click();
  await bulk.getByLabel("Kubeconfig with many contexts").setInputFiles(file);
  await expect(bulk.locator(`tr[data-context="bulk/${good[0]}"]`)).toContainText(`Already registered as bulk-${good[0]}`);
  await expect(bulk.getByTestId("bulk-selected")).toHaveText("3 of 50 contexts selected");

  // The other specs see the fleet they expect.
  await removeBulkClusters(request);
});
