import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, hydrated, snap } from "./helpers";

/**
 * The alert list on the embedded demo (no Prometheus, no Alertmanager configured): linked from the
 * fleet page, the alerts Fleetskew's rules would raise, computed from the demo fleet's sweeps.
 * The chain with a real Prometheus and Alertmanager: alerts-chain.spec.ts.
 */
test("the demo fleet's alerts, linked from the fleet page, each with its runbook", async ({ page }, testInfo) => {
  const base = process.env.FLEETSKEW_E2E_EMBEDDED_URL!;
  await page.goto(`${base}/login`);
  await hydrated(page);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);
  // prod-east-422 is blocked by its own MCO once swept; the fleet page links to the list.
  await expect(async () => {
    await page.goto(`${base}/fleet`);
    await expect(page.getByTestId("fleet-alerts-link")).toContainText(/\d+ alerts? Fleetskew would raise/, { timeout: 1000 });
  }).toPass({ timeout: 60_000 });
  await hydrated(page);
  await page.getByTestId("fleet-alerts-link").click();
  await expect(page).toHaveURL(/\/alerts$/, { timeout: 30_000 });
  await expect(page.getByRole("heading", { name: "Alerts", level: 1 })).toBeVisible();

  const row = page.locator('[data-alert="FleetskewNextMinorBlockedByBootImageSkew"][data-cluster="prod-east-422"]');
  await expect(row).toBeVisible();
  await expect(row).toContainText("warning");
  await expect(row).toContainText("boot-image skew blocks the next minor update (4.23)");
  await expect(row.getByRole("link", { name: "runbook" })).toHaveAttribute(
    "href",
    /\/docs\/runbooks\/FleetskewNextMinorBlockedByBootImageSkew\.md$/,
  );
  await expect(page.locator('[data-alert="FleetskewClusterNotUpgradeable"][data-cluster="prod-east-422"]')).toBeVisible();
  // No Alertmanager configured: the page says how to add one, and nothing waits on it.
  await expect(page.getByText("FLEETSKEW_ALERTMANAGER_URL")).toBeVisible();
  await snap(page, testInfo, "alerts-demo");

  // The same list through the API, for scripts.
  const answer = await page.request.get(`${base}/api/v1/alerts`);
  expect(answer.status()).toBe(200);
  const body = (await answer.json()) as { alerts: { alert: string; cluster: string | null }[]; alertmanager: { status: string } };
  expect(body.alertmanager).toEqual({ status: "not-configured" });
  expect(body.alerts).toContainEqual(
    expect.objectContaining({ alert: "FleetskewNextMinorBlockedByBootImageSkew", cluster: "prod-east-422" }),
  );
});
