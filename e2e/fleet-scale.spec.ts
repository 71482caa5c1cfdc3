/**
 * The fleet view at 10,000 clusters, on a console of its own whose database is filled straight
 * with a fleet's summaries: filters and sort survive a reload and a copied link, the table scrolls
 * to the last row a window at a time, and the CSV of a filtered view has exactly the matching rows.
 */
import { readFileSync } from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import pg from "pg";
import { startConsole, type StartedConsole } from "./console";
import { snap } from "./helpers";

const CLUSTERS = 10_000;
let app: StartedConsole;

/** Cluster i: platform, version, skew and readiness cycle with different periods, so filters cut across each other. */
const SEED = `
  INSERT INTO "Cluster" ("id", "name", "displayName", "labels", "platform", "apiUrl", "encryptedCredentials", "updatedAt", "lastContactStatus", "lastContactAt")
  SELECT gen_random_uuid(), 'edge-' || lpad(i::text, 5, '0'), 'edge-' || lpad(i::text, 5, '0'), jsonb_build_object('site', 'store-' || (i % 40)),
         (ARRAY['AWS', 'GCP', 'VSphere', 'BareMetal'])[1 + i % 4], 'https://edge-' || i || '.invalid:6443', '\\x00', now(), 'ok', now()
    FROM generate_series(1, ${CLUSTERS}) AS i;
  INSERT INTO "ClusterState" ("clusterId", "snapshot", "factHashes", "observedAt", "lastSeenAt", "version", "skewStatus", "skewSummary",
                              "enforcementMode", "oldestBootImage", "readinessStatus")
  SELECT c."id", '{}', '{}', now(), now(), '4.' || (12 + n % 8) || '.' || (n % 13), (ARRAY['ok', 'at-risk', 'blocked', 'opted-out', 'unknown'])[1 + n % 5],
         'seeded', 'Automatic', '4.' || (10 + n % 6) || '.0', (ARRAY['pass', 'warn', 'fail', 'unknown'])[1 + n % 4]
    FROM (SELECT "id", substring("name" from 6)::int AS n FROM "Cluster") c;
  -- Never due: these clusters exist only in the database.
  INSERT INTO "SweepSchedule" ("clusterId", "nextSweepAt") SELECT "id", now() + interval '1 year' FROM "Cluster";`;

/** Which seeded clusters a filter keeps, computed here from the same rules as SEED. */
const seeded = Array.from({ length: CLUSTERS }, (_, k) => {
  const n = k + 1;
  return {
    name: `edge-${String(n).padStart(5, "0")}`,
    platform: ["AWS", "GCP", "VSphere", "BareMetal"][n % 4]!,
    minor: `4.${12 + (n % 8)}`,
    skew: ["ok", "at-risk", "blocked", "opted-out", "unknown"][n % 5]!,
    site: `store-${n % 40}`,
  };
});

test.beforeAll(async () => {
  test.setTimeout(240_000);
  app = await startConsole();
  const client = new pg.Client({ connectionString: app.ownerUrl });
  await client.connect();
  try {
    await client.query(SEED);
  } finally {
    await client.end();
  }
});

test.afterAll(async () => {
  await app?.stop();
});

async function signIn(page: Page) {
  await page.goto(`${app.url}/login`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(app.adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);
}

const rowNames = (page: Page) =>
  page.getByRole("table", { name: "Clusters" }).getByRole("row").locator("a[href^='/clusters/']").allTextContents();

test("a filtered, sorted view survives a reload and a copied link", async ({ page, browser }, testInfo) => {
  await signIn(page);
  await page.getByRole("combobox", { name: "Platform" }).selectOption("GCP");
  await page.getByRole("combobox", { name: "Skew" }).selectOption("blocked");
  await page.getByRole("button", { name: "Sort by Cluster" }).click();
  await page.getByRole("button", { name: "Sort by Cluster" }).click();
  await expect(page).toHaveURL(/platform=GCP/);
  await expect(page).toHaveURL(/skew=blocked/);
  await expect(page).toHaveURL(/sort=name&dir=desc/);
  const expected = seeded
    .filter((c) => c.platform === "GCP" && c.skew === "blocked")
    .map((c) => c.name)
    .sort()
    .reverse();
  await expect(page.getByText(`${expected.length.toLocaleString("en-US")} of ${CLUSTERS.toLocaleString("en-US")} clusters`)).toBeVisible();
  await expect.poll(async () => (await rowNames(page)).slice(0, 3)).toEqual(expected.slice(0, 3));
  await snap(page, testInfo, "fleet-10000-filtered");

  await page.reload();
  await expect(page.getByRole("combobox", { name: "Platform" })).toHaveValue("GCP");
  await expect.poll(async () => (await rowNames(page)).slice(0, 3)).toEqual(expected.slice(0, 3));

  // A colleague opens the copied link in a browser of their own.
  const link = page.url();
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await signIn(theirs);
  await theirs.goto(link);
  await expect(theirs.getByRole("combobox", { name: "Skew" })).toHaveValue("blocked");
  await expect.poll(async () => (await rowNames(theirs)).slice(0, 3)).toEqual(expected.slice(0, 3));
  await other.close();
});

test("the table scrolls to the last of 10,000 clusters, fetching windows as it goes", async ({ page }) => {
  await signIn(page);
  await page.goto(`${app.url}/fleet?sort=name`);
  const scroller = page.getByRole("table", { name: "Clusters" }).getByRole("rowgroup").nth(1);
  const last = page.locator('a[href="/clusters/edge-10000"]');
  // Each scroll to the bottom shows rows past the loaded ones, which fetches the next window.
  await expect
    .poll(
      async () => {
        await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
        return last.isVisible();
      },
      { timeout: 90_000, intervals: [100] },
    )
    .toBe(true);
  const rows = await scroller.locator("[role=row]").last().getAttribute("aria-rowindex");
  expect(Number(rows)).toBe(CLUSTERS + 1);
});

test("the CSV of a filtered view has exactly the matching rows", async ({ page }) => {
  await signIn(page);
  await page.goto(`${app.url}/fleet?version=4.15&label=site%3Dstore-7&sort=version`);
  const expected = seeded.filter((c) => c.minor === "4.15" && c.site === "store-7").map((c) => c.name);
  await expect(page.getByText(`${expected.length} of ${CLUSTERS.toLocaleString("en-US")} clusters`)).toBeVisible();
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
  const lines = readFileSync((await download.path())!, "utf8")
    .trimEnd()
    .split("\r\n");
  expect(lines[0]).toMatch(/^name,/);
  expect(
    lines
      .slice(1)
      .map((l) => l.split(",")[0])
      .sort(),
  ).toEqual(expected.sort());
});

test("the filters are a plain GET form before the page's scripts run", async ({ browser }, testInfo) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const response = await context.request.post(`${app.url}/api/v1/session`, {
    data: { username: "admin", password: app.adminPassword },
    headers: { origin: app.url },
  });
  expect(response.status()).toBe(200);
  const page = await context.newPage();
  await page.goto(`${app.url}/fleet?sort=name`);
  await page.getByRole("searchbox").fill("edge-0999");
  await page.getByRole("combobox", { name: "Platform" }).selectOption("AWS");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(/[?&]q=edge-0999/);
  await expect(page).toHaveURL(/[?&]sort=name/);
  const expected = seeded.filter((c) => c.name.includes("edge-0999") && c.platform === "AWS").map((c) => c.name);
  expect(expected.length).toBeGreaterThan(0);
  expect((await rowNames(page)).sort()).toEqual(expected.sort());
  await snap(page, testInfo, "fleet-10000-without-scripts");
  await context.close();
});

test("a search typed before the page's scripts ran is kept and applied once they do", async ({ page }) => {
  await signIn(page);
  // Hold the page's scripts back, as a slow link would, while someone starts typing.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route("**/_next/static/chunks/**", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${app.url}/fleet?sort=name`, { waitUntil: "commit" });
  await page.getByRole("searchbox").fill("edge-0777");
  release();
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true", { timeout: 60_000 });
  await expect(page).toHaveURL(/[?&]q=edge-0777/);
  await expect(page.getByRole("searchbox")).toHaveValue("edge-0777");
  const expected = seeded.filter((c) => c.name.includes("edge-0777")).map((c) => c.name);
  await expect.poll(async () => (await rowNames(page)).sort()).toEqual(expected.sort());
});

test("search answers as you type: each keystroke narrows the rows", async ({ page }) => {
  await signIn(page);
  await page.goto(`${app.url}/fleet?sort=name`);
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  const box = page.getByRole("searchbox");
  // Typing asks the API for rows; it never asks the server to render the page again.
  const renders: string[] = [];
  page.on("request", (r) => {
    const url = new URL(r.url());
    // (The navigation's own link to /fleet may be prefetched: only a render of a searched view counts.)
    if (url.pathname === "/fleet" && url.searchParams.has("q") && (r.headers()["rsc"] === "1" || url.searchParams.has("_rsc")))
      renders.push(r.url());
  });
  await box.pressSequentially("edge-0123", { delay: 40 });
  const expected = seeded.filter((c) => c.name.includes("edge-0123")).map((c) => c.name);
  await expect.poll(async () => (await rowNames(page)).sort()).toEqual(expected.sort());
  await expect(page).toHaveURL(/[?&]q=edge-0123/);
  await box.press("Backspace");
  await expect(page).toHaveURL(/[?&]q=edge-012(&|$)/);
  await expect.poll(async () => (await rowNames(page)).length).toBeGreaterThan(expected.length);
  expect(renders).toEqual([]);
});
