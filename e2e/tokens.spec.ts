import { expect, request as newRequest, test } from "@playwright/test";
import { ADMIN_PASSWORD, hydrated, signIn, snap } from "./helpers";

test.describe.configure({ mode: "serial" });

/**
 * A person creates an API token on the API tokens page, copies the secret shown once, a script uses
 * it, and revoking it (after a confirmation) stops it at once.
 */
test("the admin creates a token on the API tokens page, a script uses it, and revoking it stops it", async ({
  page,
  baseURL,
}, testInfo) => {
  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.getByRole("link", { name: "API tokens" }).click();
  await expect(page.getByRole("heading", { name: "API tokens", level: 1 })).toBeVisible();
  await hydrated(page);

  const form = page.getByRole("form", { name: "Create a token" });
  // An error from the server is shown beside its field, in plain words.
  await form.getByLabel("Name").fill("e2e nightly");
  await form.getByLabel("Scope").fill("colour=blue");
  await form.getByRole("button", { name: "Create token" }).click();
  await expect(form.locator("#new-token-scope-error")).toContainText("is not a scope term");

  await form.getByLabel("Scope").fill("");
  await form.getByLabel("Expires in (days)").fill("30");
  await form.getByLabel("At most").selectOption("viewer");
  await form.getByRole("button", { name: "Create token" }).click();
  const secretBox = page.getByLabel("The new token's secret");
  await expect(secretBox).toHaveValue(/^fsk_[0-9A-Za-z]{49}$/);
  await expect(page.getByText("cannot show it again")).toBeVisible();
  const secret = await secretBox.inputValue();
  const row = page.locator('tr[data-token="e2e nightly"]');
  await expect(row).toContainText("viewer");
  await expect(row).toContainText("Never");
  await expect(row).toContainText(secret.slice(0, 10));
  await snap(page, testInfo, "tokens-01-created");

  // A script with the token: reads as the admin, narrowed to a viewer, and writes nothing.
  const script = await newRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${secret}` } });
  const me = await script.get("/api/v1/session");
  expect(me.status()).toBe(200);
  expect((await me.json()).user.username).toBe("admin");
  expect((await script.post("/api/v1/rollouts", { data: { dryRun: true } })).status()).toBe(403);

  // The admin's Users page lists each account's tokens in force beside it, with where each was last used.
  await page.goto("/admin");
  await hydrated(page);
  const adminTokens = page.getByRole("list", { name: "API tokens of admin" });
  await expect(adminTokens.locator('li[data-token="e2e nightly"]')).toContainText(/last used .+ from /);
  await snap(page, testInfo, "tokens-03-users-page");

  // Revoking asks first; then the token is refused at once.
  await page.goto("/tokens");
  await hydrated(page);
  await expect(row).toContainText("from ");
  await row.getByRole("button", { name: "Revoke e2e nightly" }).click();
  await row.getByRole("button", { name: "Yes, revoke" }).click();
  await expect(row).toContainText("Revoked");
  expect((await script.get("/api/v1/session")).status()).toBe(401);
  await snap(page, testInfo, "tokens-02-revoked");
  await script.dispose();
});

test("an admin revokes someone's token from the Users page, after a confirmation", async ({ page, baseURL }) => {
  await signIn(page, "admin", ADMIN_PASSWORD);
  const created = await page.request.post("/api/v1/tokens", { data: { name: "e2e left behind", expiresInDays: 7 } });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const script = await newRequest.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  expect((await script.get("/api/v1/session")).status()).toBe(200);

  await page.goto("/admin");
  await hydrated(page);
  const item = page.getByRole("list", { name: "API tokens of admin" }).locator('li[data-token="e2e left behind"]');
  await item.getByRole("button", { name: "Revoke the token e2e left behind of admin" }).click();
  await item.getByRole("alertdialog", { name: "Confirm revoking e2e left behind" }).getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByRole("status")).toContainText("Revoked admin's token e2e left behind");
  await expect(item).toHaveCount(0);
  expect((await script.get("/api/v1/session")).status()).toBe(401);
  await script.dispose();
});
