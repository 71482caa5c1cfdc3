import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, snap } from "./helpers";

test("health reports Postgres when DATABASE_URL is set", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "postgres", migrations: 1 });
});

test("with nothing configured: the embedded database, and a simulated demo fleet on the fleet page", async ({
  request,
  page,
}, testInfo) => {
  const base = process.env.FLEETSKEW_E2E_EMBEDDED_URL!;
  const response = await request.get(`${base}/api/health`);
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "embedded", migrations: 1 });

  await page.goto(`${base}/login`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);
  await expect(page.getByRole("rowheader", { name: /prod-east-422/ })).toBeVisible();
  await expect(page.getByRole("row")).toHaveCount(13); // header + 12 demo clusters
  // They are contacted in the background once the console runs.
  await expect
    .poll(async () => (await page.reload(), await page.getByRole("row", { name: /prod-east-422/ }).textContent()), { timeout: 20_000 })
    .toContain("Reachable");
  await snap(page, testInfo, "10-demo-fleet");
});
