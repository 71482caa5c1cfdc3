import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, snap } from "./helpers";

const migrations = readdirSync(path.join(__dirname, "../prisma/migrations"), { withFileTypes: true }).filter((d) => d.isDirectory()).length;

test("health reports Postgres when DATABASE_URL is set", async ({ request }) => {
  const response = await request.get("/api/health");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "postgres", migrations });
});

test("with nothing configured: the embedded database, and a simulated demo fleet on the fleet page", async ({
  request,
  page,
}, testInfo) => {
  const base = process.env.FLEETSKEW_E2E_EMBEDDED_URL!;
  const response = await request.get(`${base}/api/health`);
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ status: "ok", database: "embedded", migrations });

  await page.goto(`${base}/login`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);
  const table = page.getByRole("table", { name: "Clusters" });
  await expect(table.getByRole("link", { name: "prod-east-422" })).toBeVisible();
  await expect(table.getByRole("row")).toHaveCount(14); // header + 12 generated demo clusters + prod-east-423
  // The collector sweeps them in the background once the console runs; the page refreshes itself.
  await expect(table.getByRole("row").filter({ hasText: "prod-east-422" })).toContainText("Reachable", { timeout: 30_000 });
  await expect(table.getByRole("row").filter({ hasText: "prod-east-422" })).toContainText("Blocked");
  await snap(page, testInfo, "10-demo-fleet");
});
