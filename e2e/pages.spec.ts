import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { adminApi, ADMIN_PASSWORD, hydrated, register, signIn, snap } from "./helpers";

// Every console page, read by an admin on a desk (1440×900) and on a field technician's phone
// (390×844): the page never scrolls sideways, every table's columns can be reached (on screen, or by
// scrolling the table's own box), and axe-core finds no serious or critical accessibility violation.
// Screenshots of each page at both widths are kept in e2e/.artifacts/ for people to look at.

const ROLLOUT_FLEET = () => process.env.FLEETSKEW_E2E_ROLLOUT_KUBECONFIG!;
const DESK = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/** The page's sideways overflow, and the column headers that cannot be brought on screen. */
async function layoutProblems(page: Page) {
  return page.evaluate(() => {
    const problems: string[] = [];
    const root = document.scrollingElement!;
    if (root.scrollWidth > window.innerWidth) {
      // Which element pushes the page wider: the outermost ones past the window's edge, not inside a box that scrolls.
      const past = [...document.querySelectorAll<HTMLElement>("body *")].filter((e) => {
        if (e.getBoundingClientRect().right <= window.innerWidth + 1) return false;
        // An absolutely placed element (an off-screen label) escapes a scrolling box that is not itself positioned.
        if (getComputedStyle(e).position === "absolute") return true;
        const scroller = e.parentElement?.closest(".overflow-x-auto, .overflow-auto");
        return !scroller && !(e.parentElement && e.parentElement.getBoundingClientRect().right > window.innerWidth + 1);
      });
      const named = past
        .slice(0, 3)
        .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}.${[...e.classList].slice(0, 4).join(".")}`);
      problems.push(
        `the page is ${root.scrollWidth} px wide in a ${window.innerWidth} px window (${named.join(", ") || "no element found"})`,
      );
    }
    const headers = [...document.querySelectorAll<HTMLElement>('main th[scope="col"], main [role="columnheader"]')].filter((h) =>
      h.checkVisibility(),
    );
    for (const header of headers) {
      // Scrolls the header's own boxes (a table that scrolls sideways) and the page, as a person would.
      header.scrollIntoView({ block: "nearest", inline: "nearest" });
      const r = header.getBoundingClientRect();
      // A column wider than the screen is reached when its start is on screen: the rest scrolls past.
      const box = header.closest<HTMLElement>(".overflow-x-auto")?.getBoundingClientRect();
      const wider = box !== undefined && r.width > box.width && r.left >= box.left - 1 && r.left < box.right;
      const table = header.closest('table, [role="table"]');
      const name = `${table?.getAttribute("aria-label") ?? table?.querySelector("caption")?.textContent ?? "a table"}: "${header.textContent?.trim()}"`;
      if (r.width === 0 || r.left < -1 || (r.right > window.innerWidth + 1 && !wider))
        problems.push(`column ${name} cannot be brought on screen`);
      if (window.scrollX !== 0) problems.push(`column ${name} is reached only by scrolling the page sideways`);
      // A column squeezed narrower than its heading's words breaks them letter by letter: more lines than words.
      // Each visible text of the heading on its own (a sort button's icon, an off-screen label aside).
      const texts = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
      for (let node = texts.nextNode(); node; node = texts.nextNode()) {
        const words = (node.textContent ?? "").trim().split(/\s+/).filter(Boolean).length;
        if (!words || (node.parentElement?.getBoundingClientRect().width ?? 0) <= 1) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const lines = new Set([...range.getClientRects()].filter((l) => l.width > 0).map((l) => Math.round(l.top))).size;
        if (lines > words) problems.push(`column ${name} is too narrow: its heading breaks inside words`);
      }
      window.scrollTo(0, window.scrollY);
    }
    return problems;
  });
}

/** axe-core's serious and critical findings, one line each: rule, what it means, where. */
async function axeProblems(page: Page) {
  const result = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.impact} ${v.id} (${v.help}): ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 5)
          .join(", ")}`,
    );
}

/** Waits until the page has drawn what it asks the server for (the console refreshes itself, so quiet is enough). */
async function settled(page: Page) {
  await hydrated(page);
  await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined);
  await expect(page.locator("main"))
    .not.toContainText("Loading…", { timeout: 15_000 })
    .catch(() => undefined);
}

type Visit = { name: string; path: () => string };

let rolloutPath = "/rollouts";

const PAGES: Visit[] = [
  { name: "fleet", path: () => "/fleet" },
  { name: "cluster", path: () => "/clusters/prod-east" },
  { name: "preview", path: () => "/preview" },
  { name: "rollouts", path: () => "/rollouts" },
  { name: "rollout", path: () => rolloutPath },
  { name: "bundles", path: () => "/bundles" },
  { name: "acknowledgements", path: () => "/acknowledgements" },
  { name: "alerts", path: () => "/alerts" },
  { name: "audit", path: () => "/audit" },
  { name: "admin-users", path: () => "/admin" },
  { name: "admin-clusters", path: () => "/admin/clusters" },
  { name: "admin-hubs", path: () => "/admin/hubs" },
  { name: "admin-settings", path: () => "/admin/settings" },
  { name: "admin-service-accounts", path: () => "/admin/service-accounts" },
  { name: "tokens", path: () => "/tokens" },
];

test.describe("every console page at desk and phone width", () => {
  test.beforeAll(async ({ request }) => {
    test.setTimeout(120_000);
    await register(request, ["prod-east", "prod-east-422"]);
    // A token of the admin's, so the token tables (API tokens, Users) have a row to lay out.
    expect((await request.post("/api/v1/tokens", { data: { name: "pages spec", expiresInDays: 1 } })).status()).toBe(201);
    // A rollout of this spec's own (a plan, never started), on a name no other spec's search finds.
    await register(request, [{ name: "look-east", context: "prod-east", fleet: ROLLOUT_FLEET() }]);
    await expect
      .poll(
        async () =>
          ((await (await request.get("/api/v1/clusters/prod-east")).json()) as { cluster?: { version: string | null } }).cluster?.version,
        {
          timeout: 60_000,
        },
      )
      .toBeTruthy();
    await expect
      .poll(
        async () =>
          ((await (await request.get("/api/v1/clusters/look-east")).json()) as { cluster?: { version: string | null } }).cluster?.version,
        {
          timeout: 60_000,
        },
      )
      .toBeTruthy();
    await adminApi(request);
    const listed = (await (await request.get("/api/v1/rollouts")).json()) as { rollouts: { number: number; name?: string }[] };
    const created = await request.post("/api/v1/rollouts", {
      data: { kind: "upgrade", target: "4.19.12", selection: { clusters: ["look-east"] } },
    });
    const number = created.status() === 201 ? ((await created.json()) as { number: number }).number : listed.rollouts[0]?.number;
    expect(number, `a rollout to look at (creating one answered ${created.status()}: ${await created.text()})`).toBeTruthy();
    rolloutPath = `/rollouts/${number}`;
  });

  for (const visit of PAGES)
    test(`${visit.name}: no sideways page scroll, every column reachable, no serious axe violation`, async ({ page }, testInfo) => {
      test.setTimeout(90_000);
      await signIn(page, "admin", ADMIN_PASSWORD);
      for (const [label, size] of [
        ["1440", DESK],
        ["390", PHONE],
      ] as const) {
        await page.setViewportSize(size);
        await page.goto(visit.path());
        await settled(page);
        if (visit.name === "fleet")
          await expect(page.getByRole("table", { name: "Clusters" }).locator('a[href="/clusters/prod-east"]')).toBeVisible({
            timeout: 30_000,
          });
        await snap(page, testInfo, `page-${visit.name}-${label}`);
        expect.soft(await layoutProblems(page), `${visit.path()} at ${label} px`).toEqual([]);
        expect.soft(await axeProblems(page), `axe on ${visit.path()} at ${label} px`).toEqual([]);
      }
    });

  test("the fleet page shows its table's first rows at 1440×900, and a count tile filters it in sight", async ({ page }) => {
    await signIn(page, "admin", ADMIN_PASSWORD);
    await page.setViewportSize(DESK);
    await page.goto("/fleet");
    await settled(page);
    const table = page.getByRole("table", { name: "Clusters" });
    await expect(table.getByRole("row").nth(1)).toBeInViewport();
    // On a phone the tiles fill the screen: a tile's click brings the table it filtered into view.
    await page.setViewportSize(PHONE);
    await page.evaluate(() => window.scrollTo(0, 0));
    await expect(table.getByRole("row").nth(1)).not.toBeInViewport();
    await page.getByRole("button", { name: /Skew at risk/ }).click();
    await expect(page).toHaveURL(/skew=at-risk/);
    await expect(table.getByRole("row").first()).toBeInViewport();
  });
});
