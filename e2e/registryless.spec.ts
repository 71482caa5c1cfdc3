import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, register, signIn, snap } from "./helpers";

/** edge-registryless: installed without a registry, serving 4.22.2 from its InternalReleaseImage; master-0's registry is down. */
const CLUSTER = "edge-registryless";
const BUNDLE = "ocp-release-bundle-4.22.2-x86_64";

test("the fleet list marks a registry-less cluster, and only that one", async ({ page, request }, testInfo) => {
  await register(request, [CLUSTER, "prod-east-422"]);
  await signIn(page, "admin", ADMIN_PASSWORD);
  const table = page.getByRole("table", { name: "Clusters" });
  const row = (name: string) => table.getByRole("row").filter({ has: page.locator(`a[href="/clusters/${name}"]`) });
  await expect(row(CLUSTER)).toContainText("4.22.2", { timeout: 30_000 });
  await expect(row(CLUSTER)).toContainText("registry-less");
  await expect(row("prod-east-422")).toContainText("4.22.3", { timeout: 30_000 });
  await expect(row("prod-east-422")).not.toContainText("registry-less");
  const listed = await request.get(`/api/v1/clusters/${CLUSTER}`);
  expect((await listed.json()).cluster.registryLess).toBe(true);
  await snap(page, testInfo, "60-fleet-registry-less");
});

test("a registry-less cluster's page shows the releases it serves and each node's registry", async ({ page, request }, testInfo) => {
  await register(request, [CLUSTER]);
  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.goto(`/clusters/${CLUSTER}`);
  const section = page.getByRole("region", { name: "Registry-less releases" });
  await expect(section).toBeVisible({ timeout: 30_000 });

  const release = section.locator(`tr[data-release="${BUNDLE}"]`);
  await expect(release).toHaveAttribute("data-state", "degraded");
  await expect(release).toContainText("4.22.2");
  await expect(release).toContainText("SomeRegistriesUnavailable");
  await expect(release).toContainText(/api-int\.edge-registryless\.example\.com:22625\/openshift\/release-images@sha256:/);

  const nodes = section.getByRole("table", { name: "Registry on each node" });
  await expect(nodes.locator("tr[data-node]")).toHaveCount(3);
  const master0 = nodes.locator('tr[data-node$="-master-0"]');
  await expect(master0).toHaveAttribute("data-state", "degraded");
  await expect(master0).toContainText("RegistryUnreachable");
  await expect(master0).toContainText(`${BUNDLE}: Not available`);
  await expect(nodes.locator('tr[data-state="available"]')).toHaveCount(2);
  await expect(section.getByRole("table", { name: "InternalReleaseImage cluster" })).toContainText("SomeRegistriesUnavailable");

  // Readiness for a release the cluster does not hold calls it out.
  await page.getByLabel("Target version").fill("4.23.1");
  await page.getByRole("button", { name: "Check" }).click();
  const check = page.locator('[data-check="registry-less"]');
  await expect(check).toHaveAttribute("data-status", "fail");
  await expect(check).toContainText("cannot serve 4.23.1");
  await expect(check).toContainText("RegistryUnreachable");
  await section.scrollIntoViewIfNeeded();
  await snap(page, testInfo, "61-cluster-registry-less");
});
