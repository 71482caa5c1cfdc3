import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, register, signIn, snap } from "./helpers";

test("the fleet page shows skew and readiness per cluster, and filters them", async ({ page, request }, testInfo) => {
  await register(request, ["prod-east", "prod-east-422"]);
  await signIn(page, "admin", ADMIN_PASSWORD);
  const table = page.getByRole("table", { name: "Clusters" });
  // The collector sweeps newly registered clusters within seconds; the page refreshes itself.
  const row = (name: string) => table.getByRole("row").filter({ has: page.locator(`a[href="/clusters/${name}"]`) });
  await expect(row("prod-east-422")).toContainText("Blocked", { timeout: 30_000 });
  await expect(row("prod-east")).toContainText("At risk", { timeout: 30_000 });
  await expect(row("prod-east")).toContainText("4.12.7");
  await expect(page.getByText(/Last updated/).first()).toBeVisible();

  await page.getByRole("combobox", { name: "Skew" }).selectOption("at-risk");
  await expect(row("prod-east")).toBeVisible();
  await expect(row("prod-east-422")).toHaveCount(0);
  await page.getByRole("combobox", { name: "Skew" }).selectOption("");
  await page.getByRole("searchbox", { name: "Search" }).fill("422");
  await expect(row("prod-east-422")).toBeVisible();
  await expect(row("prod-east")).toHaveCount(0);
  await page.getByRole("searchbox", { name: "Search" }).fill("");
  await snap(page, testInfo, "20-fleet");
});

test("a cluster page explains its skew, draws its timeline and checks readiness for a chosen target", async ({
  page,
  request,
}, testInfo) => {
  await register(request, ["prod-east", "prod-east-422"]);
  await signIn(page, "admin", ADMIN_PASSWORD);
  const table = page.getByRole("table", { name: "Clusters" });
  const link = page.locator('a[href="/clusters/prod-east"]');
  await expect(table.getByRole("row").filter({ has: link })).toContainText("4.19.10", { timeout: 30_000 });
  await table.locator('a[href="/clusters/prod-east"]').click();
  await expect(page).toHaveURL(/\/clusters\/prod-east$/);
  await expect(page.getByText("Upgradeable=False, reason ClusterBootImageSkewError (predicted once at 4.22.0)")).toBeVisible();
  await expect(page.getByText(/OCP boot image version 4\.12\.7, which is below the minimum required version 4\.13\.0/)).toBeVisible();
  // History from ClusterVersion, backfilled on first contact: the chart is drawn.
  await expect(
    page.getByRole("img", { name: /Skew timeline of prod-east: cluster version 4\.19\.10, oldest boot image 4\.12\.7/ }),
  ).toBeVisible();
  await expect(page.locator(".recharts-line path").first()).toBeVisible();
  await expect(page.getByRole("table", { name: "MachineSets" })).toContainText("assumed: the image the cluster was installed with");

  await page.getByLabel("Target version").fill("4.22.3");
  await page.getByRole("button", { name: "Check" }).click();
  const skewCheck = page.locator('[data-check="boot-image-skew"]');
  await expect(skewCheck).toHaveAttribute("data-status", "warn");
  await expect(skewCheck).toContainText("ClusterBootImageSkewError");
  await snap(page, testInfo, "21-cluster-prod-east");
  // The alert groups `oc adm upgrade recommend` checks: the simulated querier fires only Watchdog and the receivers warning.
  const criticalAlerts = page.locator('[data-check="alerts-critical"]');
  await expect(criticalAlerts).toHaveAttribute("data-status", "pass");
  await expect(criticalAlerts).toContainText("No critical alerts firing.");
  await expect(page.locator('[data-check="alerts-pdb"]')).toContainText("No PodDisruptionBudget alerts firing.");
  await snap(page, testInfo, "21-cluster-prod-east-alert-checks");

  await page.goto("/clusters/prod-east-422");
  await page.getByLabel("Target version").fill("4.23");
  await page.getByRole("button", { name: "Check" }).click();
  await expect(page.locator('[data-check="boot-image-skew"]')).toHaveAttribute("data-status", "fail");
  // No OSImageStream at 4.22 Default: pools run the MCO's built-in default for a 4.x install, and no RHEL 10 pool is refused at 4.23.
  await expect(page.getByRole("table", { name: "MachineConfigPools" }).getByRole("row", { name: /^worker/ })).toContainText(
    "rhel-9MCO built-in default",
  );
  await expect(page.locator('[data-check="os-stream-runc"]')).toHaveAttribute("data-status", "pass");
  await page.getByLabel("Target version").fill("4.22.5");
  await page.getByRole("button", { name: "Check" }).click();
  await expect(page.locator('[data-check="boot-image-skew"]')).toHaveAttribute("data-status", "pass");
  await snap(page, testInfo, "22-cluster-prod-east-422");
});

test("an unknown cluster is a 404 page, and bad timeline windows are refused with a message", async ({ page, request }) => {
  await register(request, ["prod-east"]);
  const bad = await request.get("/api/v1/clusters/prod-east/timeline?from=yesterday");
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error).toMatch(/ISO 8601/);
  for (const target of ["latest", "4.99999999999999999999.1", "04.22.3"])
    expect([target, (await request.get(`/api/v1/clusters/prod-east/readiness?target=${target}`)).status()]).toEqual([target, 400]);
  expect((await request.get("/api/v1/fleet/readiness?target=4.100000")).status()).toBe(400);
  expect((await request.get("/api/v1/clusters/prod-east/timeline?from=2026-02-30")).status()).toBe(400);
  // Each point is a day's end, from the day `from` names on.
  const days = ((await (await request.get("/api/v1/fleet/timeline?from=2026-04-25&to=2026-05-01")).json()) as { days: { day: string }[] })
    .days;
  expect([days[0]?.day, days.at(-1)?.day]).toEqual(["2026-04-25", "2026-05-01"]);
  await signIn(page, "admin", ADMIN_PASSWORD);
  const response = await page.goto("/clusters/no-such-cluster");
  expect(response?.status()).toBe(404);
});
