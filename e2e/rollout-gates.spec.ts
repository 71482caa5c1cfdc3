import { expect, test, type Page } from "@playwright/test";
import { ADMIN_PASSWORD, hydrated, snap } from "./helpers";

// The demo fleet of the console started with nothing configured (embedded database, a simulated
// fleet of 12): a plan to 4.19.11 is judged for 4.19.11, as the CVO would take it.
const TARGET = { text: "4.19.11", major: 4, minor: 19 };

type FleetRow = { name: string; version: string; readiness: string; readinessFor: string; blocker: string };

const minorOf = (version: string) => {
  const m = /^(\d+)\.(\d+)/.exec(version);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
};

/** What the fleet page shows of each cluster: its version, its readiness badge and what it is for, its first blocker. */
async function fleetRows(page: Page): Promise<FleetRow[]> {
  const rows = page.getByRole("table", { name: "Clusters" }).getByRole("row");
  return rows.evaluateAll((elements) =>
    elements
      .map((row) => [...row.querySelectorAll('[role="cell"]')])
      .filter((cells) => cells.length >= 7)
      .map((cells) => ({
        name: cells[0]!.querySelector("a")?.textContent?.trim() ?? "",
        version: cells[1]!.textContent?.trim() ?? "",
        readiness: cells[5]!.textContent?.replace(/[✕!✓?]/g, "").trim() ?? "",
        readinessFor: (cells[5]!.querySelector("[title]")?.getAttribute("title") ?? "").replace(/^for /, ""),
        blocker: cells[6]!.textContent?.trim() ?? "",
      })),
  );
}

test("on the demo fleet, a plan to 4.19.11 excludes every cluster the fleet page shows blocked for it and every cluster more than one minor below, each with its reason", async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  const base = process.env.FLEETSKEW_E2E_EMBEDDED_URL!;
  await page.goto(`${base}/login`);
  await hydrated(page);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(ADMIN_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/);

  // The collector sweeps the demo clusters once the console runs; the page refreshes itself.
  const table = page.getByRole("table", { name: "Clusters" });
  await expect(table.getByRole("row")).toHaveCount(14); // header + 12 generated demo clusters + prod-east-423
  await expect
    .poll(async () => (await fleetRows(page)).filter((r) => r.version !== "—" && r.readiness !== "Unknown").length, {
      timeout: 90_000,
    })
    .toBe(13);
  const fleet = await fleetRows(page);
  await snap(page, testInfo, "80-demo-fleet-readiness");

  const blockedForTarget = fleet.filter((r) => {
    const judged = minorOf(r.readinessFor);
    return r.readiness === "Blocked" && judged?.major === TARGET.major && judged.minor === TARGET.minor;
  });
  // A cluster that needs a minor update to reach the target and shows Blocked for its next minor (4.19, or one on the way).
  const blockedOnTheWay = fleet.filter((r) => r.readiness === "Blocked" && (minorOf(r.version)?.minor ?? 99) < TARGET.minor);
  const tooFarBelow = fleet.filter((r) => {
    const v = minorOf(r.version);
    return !!v && v.major === TARGET.major && v.minor < TARGET.minor - 1;
  });
  // The demo has clusters at 4.15, 4.16 and 4.17: the check below is not vacuous.
  expect(tooFarBelow.map((r) => r.version)).toContain("4.15.4");
  expect(tooFarBelow.length).toBeGreaterThanOrEqual(4);
  expect(blockedOnTheWay.length).toBeGreaterThanOrEqual(4);

  // Plan from the fleet page, as a person does: every cluster, upgrade to 4.19.11, only shown.
  await page.getByRole("link", { name: "Plan a rollout" }).click();
  await expect(page).toHaveURL(/\/rollouts\?query=/);
  const form = page.getByRole("form", { name: "Plan a rollout" });
  await form.getByLabel("Target release").fill(TARGET.text);
  await form.getByRole("button", { name: "Show the plan" }).click();
  const preview = page.getByTestId("plan-preview");
  await expect(preview).toBeVisible();
  const excludedItems = preview.getByTestId("excluded-cluster");
  await expect(excludedItems.first()).toBeVisible();
  const excluded = new Map(
    (await excludedItems.allTextContents()).map((text) => {
      const at = text.indexOf(": ");
      return [text.slice(0, at).trim(), text.slice(at + 2).trim()] as const;
    }),
  );
  const planned = (await preview.getByTestId("planned-wave").allTextContents()).join(" ");
  await snap(page, testInfo, "81-plan-to-4.19.11-excluded");

  for (const r of [...blockedForTarget, ...blockedOnTheWay]) {
    expect(excluded.get(r.name), `${r.name} (${r.version}, Blocked – ${r.blocker} for ${r.readinessFor}) is excluded`).toBeTruthy();
    expect(planned).not.toContain(r.name);
  }
  for (const r of tooFarBelow) {
    expect(excluded.get(r.name), `${r.name} at ${r.version} is excluded with the one-minor rule`).toMatch(
      new RegExp(
        `^${TARGET.text.replace(/\./g, "\\.")} is \\d minor versions beyond ${r.version.replace(/\./g, "\\.")}, and OpenShift updates one minor version at a time`,
      ),
    );
  }
  // Blocked for 4.20 (an admin gate of 4.19) does not hold back a 4.19 patch update: those clusters take part.
  const patchOf = (version: string) => Number(/^\d+\.\d+\.(\d+)/.exec(version)?.[1] ?? Number.NaN);
  const patchOnly = fleet.filter((r) => minorOf(r.version)?.minor === TARGET.minor && patchOf(r.version) < patchOf(TARGET.text));
  expect(patchOnly.length).toBeGreaterThanOrEqual(2);
  for (const r of patchOnly) {
    if (r.readiness === "Blocked") expect(minorOf(r.readinessFor)?.minor).toBe(TARGET.minor + 1);
    expect(excluded.has(r.name), `${r.name} at ${r.version} takes ${TARGET.text} as a patch update`).toBe(false);
  }
  // Every cluster included may take the update in one step: at most one minor below the target.
  for (const r of fleet.filter((f) => planned.includes(f.name)))
    expect(TARGET.minor - (minorOf(r.version)?.minor ?? 0), `${r.name} at ${r.version}`).toBeLessThanOrEqual(1);
  // What is shown is what the plan API answers.
  const answer = await page.request.post(`${base}/api/v1/rollouts`, {
    data: { kind: "upgrade", target: TARGET.text, selection: { query: "" }, strategy: {}, dryRun: true },
  });
  expect(answer.status()).toBe(200);
  const plan = (await answer.json()) as { excluded: { cluster: string; reason: string }[] };
  expect(new Map(plan.excluded.map((e) => [e.cluster, e.reason]))).toEqual(excluded);
});
