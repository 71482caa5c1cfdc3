import { expect, test } from "@playwright/test";

test("health reports Postgres when DATABASE_URL is set", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "postgres", migrations: 1 });
});

test("health reports the embedded database when nothing is configured, and its login page serves", async ({ request, page }) => {
  const base = process.env.FLEETSKEW_E2E_EMBEDDED_URL!;
  const response = await request.get(`${base}/api/health`);
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "embedded", migrations: 1 });
  await page.goto(`${base}/login`);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
});
