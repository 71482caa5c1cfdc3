import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, type Page, type TestInfo } from "@playwright/test";

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
