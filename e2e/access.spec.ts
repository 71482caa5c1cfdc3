import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, hydrated, register, signIn, snap } from "./helpers";

test.describe.configure({ mode: "serial" });

// A retry runs the whole file again in a new worker, against the same database: its technician is a new one.
const TECH = { username: `field-tech-${process.env.TEST_WORKER_INDEX ?? "0"}`, password: "field technician password" };

test("a visitor without a session is sent to the login page", async ({ page }, testInfo) => {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/login\?next=%2Fadmin$/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await snap(page, testInfo, "01-login");
});

test("a wrong password is refused with a message", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("form", { name: "Sign in" }).getByRole("alert")).toHaveText("Wrong username or password");
  await expect(page).toHaveURL(/\/login/);
});

test("the admin signs in, sees the fleet and every section, and creates a technician", async ({ page }, testInfo) => {
  await signIn(page, "admin", ADMIN_PASSWORD);
  await expect(page.getByRole("heading", { name: "Fleet", exact: true })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveText([
    "Fleet",
    "Alerts",
    "Preview",
    "Rollouts",
    "Bundles",
    "Acknowledgements",
    "Audit",
    "Admin",
  ]);
  await snap(page, testInfo, "02-fleet");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await expect(page.getByRole("heading", { name: "Users" })).toBeVisible();
  await hydrated(page);
  const form = page.getByRole("form", { name: "Create user" });
  await form.getByLabel("Username").fill(TECH.username);
  await form.getByLabel("Display name").fill("Field Technician");
  await form.getByLabel("Role").selectOption("technician");
  await form.getByLabel("Password").fill(TECH.password);
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(page.getByRole("status")).toContainText(`Created ${TECH.username} (technician)`);
  const row = page.locator(`tr[data-username="${TECH.username}"]`);
  await expect(row.getByLabel(`Role of ${TECH.username}`)).toHaveValue("technician");
  await snap(page, testInfo, "03-admin-users");

  // The creation is in the audit log.
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit" }).click();
  await expect(page.getByRole("row").filter({ hasText: "user.create" }).filter({ hasText: TECH.username })).toBeVisible();
  await snap(page, testInfo, "04-audit");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login/);
});

test("the technician signs in with the keyboard alone and is refused the admin page", async ({ page }, testInfo) => {
  await page.goto("/login");
  await page.keyboard.type(TECH.username); // the username field has focus on arrival
  await page.keyboard.press("Tab");
  await page.keyboard.type(TECH.password);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/fleet$/);
  await expect(page.getByText(`${TECH.username}`, { exact: true })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" })).toHaveCount(0);

  const response = await page.goto("/admin");
  expect(response?.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Your role does not give access to this page" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Users" })).toHaveCount(0);
  await snap(page, testInfo, "05-technician-refused-admin");
});

test("the API answers 401 without a session, 403 for the wrong role, and refuses a foreign Origin", async ({ playwright, baseURL }) => {
  const anonymous = await playwright.request.newContext({ baseURL });
  expect((await anonymous.get("/api/v1/users")).status()).toBe(401);

  const tech = await playwright.request.newContext({ baseURL });
  expect((await tech.post("/api/v1/session", { data: TECH })).status()).toBe(200);
  const refused = await tech.get("/api/v1/users");
  expect(refused.status()).toBe(403);
  expect((await refused.json()).error).toContain("needs the admin role");

  const admin = await playwright.request.newContext({ baseURL });
  expect((await admin.post("/api/v1/session", { data: { username: "admin", password: ADMIN_PASSWORD } })).status()).toBe(200);
  const forged = await admin.post("/api/v1/users", {
    data: { username: "forged", role: "admin", password: "forged password here" },
    headers: { origin: "https://attacker.example" },
  });
  expect(forged.status()).toBe(403);
  const users = await (await admin.get("/api/v1/users")).json();
  expect(users.users.map((u: { username: string }) => u.username)).not.toContain("forged");
  await Promise.all([anonymous.dispose(), tech.dispose(), admin.dispose()]);
});

test("the console reads well in the dark theme: dark surfaces, and every text at 4.5:1 or more", async ({ page, request }, testInfo) => {
  // Up to 30 s for the clusters' first sweep, then six pages read with their charts drawn.
  test.setTimeout(90_000);
  // Clusters with skew, readiness and history, so the badges, tiles and charts are on the pages read.
  await register(request, ["prod-east", "prod-east-422"]);
  await page.emulateMedia({ colorScheme: "dark" });
  await signIn(page, "admin", ADMIN_PASSWORD);
  const row = page.getByRole("table", { name: "Clusters" }).getByRole("row").filter({ hasText: "prod-east-422" });
  await expect(row).toContainText("Blocked", { timeout: 30_000 });
  for (const path of ["/fleet", "/clusters/prod-east", "/bundles", "/acknowledgements", "/admin", "/audit"]) {
    await page.goto(path);
    await expect(page.getByRole("main")).toBeVisible();
    // The charts draw once their data has come: read the page with them.
    if (path === "/fleet" || path.startsWith("/clusters/")) await expect(page.locator(".recharts-legend-item").first()).toBeVisible();
    const { canvas, low } = await page.evaluate(readability);
    // A dark page: the canvas is near black (relative luminance), not the light theme's near white.
    expect(canvas, path).toBeLessThan(0.05);
    expect(low, path).toEqual([]);
  }
  await page.goto("/admin");
  await snap(page, testInfo, "06-admin-dark");
});

/**
 * Runs in the page: the canvas's relative luminance, and every visible text whose contrast with the
 * background it is drawn on (semi-transparent backgrounds composed over their parents) is below
 * WCAG AA's 4.5:1. Disabled controls are exempt, as WCAG exempts inactive components.
 */
function readability() {
  type Rgba = [number, number, number, number];
  const parse = (css: string): Rgba => {
    const [r = 0, g = 0, b = 0, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
    return [r, g, b, css.startsWith("rgba") ? a : 1];
  };
  const over = (top: Rgba, bottom: Rgba): Rgba => [0, 1, 2].map((i) => top[i]! * top[3] + bottom[i]! * (1 - top[3])).concat(1) as Rgba;
  const luminance = ([r, g, b]: Rgba) =>
    [r, g, b]
      .map((c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4))
      .reduce((sum, c, i) => sum + c * [0.2126, 0.7152, 0.0722][i]!, 0);
  const background = (el: Element | null): Rgba => {
    if (!el) return [255, 255, 255, 1];
    const own = parse(getComputedStyle(el).backgroundColor);
    return own[3] === 1 ? own : over(own, background(el.parentElement));
  };
  const low: string[] = [];
  for (const el of document.querySelectorAll("body *")) {
    const text = [...el.childNodes]
      .filter((n) => n.nodeType === Node.TEXT_NODE)
      .map((n) => n.textContent!.trim())
      .join(" ");
    if (!text || !(el as HTMLElement).offsetParent || el.closest("[disabled], [aria-hidden=true], .sr-only")) continue;
    const style = getComputedStyle(el);
    const fg = over(parse(style.color), background(el));
    const bg = background(el);
    const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    const ratio = (hi! + 0.05) / (lo! + 0.05);
    if (ratio < 4.5) low.push(`${el.tagName.toLowerCase()} "${text.slice(0, 40)}": ${ratio.toFixed(2)}:1`);
  }
  return { canvas: luminance(background(document.body)), low };
}
