import { expect as baseExpect, test, type Page } from "@playwright/test";
import { adminApi, ensureUser, hydrated, register, signIn, signOut, snap } from "./helpers";

// The rollout fleet is this spec's alone (its simulator runs 1,200 times real time): prod-east at
// 4.19.10 takes 4.19.11 as a patch update; plant-west-0002 at 4.17.6 is two minors below 4.19.11, so
// the plan excludes it, and it reports Upgradeable=False (an admin gate of 4.17 not acknowledged), so
// its CVO refuses the update when an admin includes it anyway; the others already run a newer release.
const FLEET = process.env.FLEETSKEW_E2E_ROLLOUT_KUBECONFIG!;
// Registered under names of their own: no other spec's cluster name is part of one, so a search or a
// row found by another spec's cluster name never finds these.
const CLUSTERS: [context: string, name: string][] = [
  ["prod-east", "wave-east"],
  ["prod-east-422", "wave-east-422"],
  ["edge-registryless", "wave-edge"],
  ["prod-east-0000", "wave-east-0000"],
  ["prod-south-0001", "wave-south-0001"],
  ["plant-west-0002", "wave-west-0002"],
];
const TECH = { username: "ro-tech", password: "rollout technician password", role: "technician" };
const APPROVER = { username: "ro-approver", password: "rollout approver password", role: "approver" };

// A rollout's page asks for the rollout every 5 s (LIVE_MS) and then for the rows that changed: a
// change made elsewhere shows after up to one interval and two answers, which on a busy machine
// takes longer than expect's default 5 s.
const expect = baseExpect.configure({ timeout: 15_000 });

/** Durations as the console writes them everywhere ("3 h 10 min", "45 s"). */
const DURATION = /\d+ (d|h|min|s)( \d+ (h|min|s))*/;
/** Moments as the console writes them everywhere ("27 Nov 2026, 21:37 UTC"). */
const DATE = /\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC/;

/**
 * The rollout's summary (clusters per state) against the rows its clusters table lists, read in one
 * go: the states where they disagree, none once the table has caught up.
 */
async function countsAgainstRows(page: Page) {
  return page.evaluate(() => {
    const counts = Object.fromEntries(
      [...document.querySelectorAll<HTMLElement>('[data-testid="rollout-counts"] li')].map((li) => [
        li.dataset.state!,
        Number(li.dataset.count),
      ]),
    );
    const rows: Record<string, number> = {};
    for (const tr of document.querySelectorAll<HTMLElement>('[data-testid="rollout-clusters"] tbody tr'))
      rows[tr.dataset.state!] = (rows[tr.dataset.state!] ?? 0) + 1;
    const states = [...new Set([...Object.keys(counts), ...Object.keys(rows)])].sort();
    return states.filter((s) => (counts[s] ?? 0) !== (rows[s] ?? 0)).map((s) => `${s}: ${counts[s] ?? 0} counted, ${rows[s] ?? 0} rows`);
  });
}

test("a technician plans a rollout from a fleet filter, sees who is excluded and why; an approver starts, pauses and resumes it; a refused upgrade stops it; a page left open follows every change", async ({
  page,
  request,
  browser,
}, testInfo) => {
  test.setTimeout(180_000);
  await register(
    request,
    CLUSTERS.map(([context, name]) => ({ name, context, fleet: FLEET })),
  );
  await ensureUser(request, TECH);
  await ensureUser(request, APPROVER);
  // Each cluster is checked from its last sweep: plan once all six have been read.
  await expect
    .poll(
      async () => {
        const list = (await (await request.get("/api/v1/clusters?q=wave-&limit=10")).json()) as { clusters: { version: string | null }[] };
        return list.clusters.filter((c) => c.version).length;
      },
      { timeout: 90_000 },
    )
    .toBe(6);

  // The fleet view's filter carries over to the plan.
  await signIn(page, TECH.username, TECH.password);
  await page.goto("/fleet?q=wave-");
  await expect(async () => {
    await page.reload();
    await expect(page.getByText("6 of", { exact: false })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await page.getByRole("link", { name: "Plan a rollout" }).click();
  await expect(page).toHaveURL(/\/rollouts\?query=q%3Dwave-/);

  // The planning form works before the page's scripts run: a plain GET.
  const form = page.getByRole("form", { name: "Plan a rollout" });
  await expect(form.getByLabel("Fleet filter")).toHaveValue("q=wave-");
  // What a field left alone means is its value, in the field: no grey example to take for one.
  await expect(form.getByLabel("Soak after a wave")).toHaveValue("0s");
  await expect(form.getByLabel("Deadline per cluster")).toHaveValue("4h");
  await expect(form.getByLabel("Time zone")).toHaveValue("UTC");
  expect(await form.locator("input[placeholder]").count()).toBe(0);
  await form.getByLabel("Target release").fill("4.19.11");
  await form.getByLabel("Canaries").fill("wave-east");
  await form.getByLabel("Clusters per wave").fill("1");
  await form.getByLabel("Failures tolerated").fill("0");
  await form.getByRole("button", { name: "Show the plan" }).click();
  const preview = page.getByTestId("plan-preview");
  await expect(preview.getByText("The plan: 1 of 6 clusters in 1 wave")).toBeVisible();
  await expect(preview.getByTestId("planned-wave")).toHaveText([/canaries.*1 cluster: wave-east/]);
  await expect(preview.getByTestId("excluded-cluster")).toHaveCount(5);
  const estimate = new RegExp(`Estimated (${DURATION.source}), until ${DATE.source}`).exec((await preview.textContent()) ?? "");
  expect(estimate).not.toBeNull();
  await expect(preview.getByTestId("excluded-cluster").filter({ hasText: "wave-east-422" })).toContainText(
    "it already runs 4.22.3, not older than 4.19.11",
  );
  await expect(preview.getByTestId("excluded-cluster").filter({ hasText: "wave-west-0002" })).toContainText(
    "4.19.11 is 2 minor versions beyond 4.17.6, and OpenShift updates one minor version at a time",
  );
  await snap(page, testInfo, "70-rollout-plan");

  await hydrated(page);
  await preview.getByRole("button", { name: "Save the plan for approval" }).click();
  await expect(page).toHaveURL(/\/rollouts\/\d+$/);
  const status = page.getByTestId("rollout-status");
  await expect(status).toHaveAttribute("data-status", "awaiting-approval");
  await expect(page.getByText("Someone else with the approver role starts it.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve and start" })).toHaveCount(0);
  // The planner and the approver read the same estimate, written the same way.
  await expect(page.getByText(`estimated ${estimate![1]}.`, { exact: false })).toBeVisible();
  const url = page.url();
  await signOut(page);

  // The technician's page stays open, never reloaded, while the approver works in another browser.
  const watcherContext = await browser.newContext({ baseURL: testInfo.project.use.baseURL });
  const watcher = await watcherContext.newPage();
  await signIn(watcher, TECH.username, TECH.password);
  await watcher.goto(url);
  await hydrated(watcher);
  const watched = watcher.getByTestId("rollout-clusters");

  // Four eyes: an approver starts it, pauses it and resumes it.
  await signIn(page, APPROVER.username, APPROVER.password);
  await page.goto(url);
  await hydrated(page);
  await page.getByRole("button", { name: "Approve and start" }).click();
  await expect(status).toHaveAttribute("data-status", "running");
  await page.getByLabel("Comment").fill("checking the canary by hand");
  await page.getByRole("button", { name: "Pause" }).click();
  await expect(status).toHaveAttribute("data-status", "paused");
  await expect(status).toContainText("paused by ro-approver: checking the canary by hand");

  // While it is paused an admin includes the cluster its checks excluded, with a reason: it joins the
  // last wave, and both pages list it without a reload.
  await adminApi(request);
  const include = await request.post(`/api/v1/rollouts/${/\/rollouts\/(\d+)$/.exec(url)![1]}/clusters`, {
    data: { action: "include", clusters: ["wave-west-0002"], comment: "the CVO decides for itself" },
  });
  expect(include.status()).toBe(200);
  for (const p of [page, watcher])
    await expect(p.getByTestId("rollout-clusters").locator('tr[data-state="pending"]').filter({ hasText: "wave-west-0002" })).toHaveCount(
      1,
    );
  await expect.poll(() => countsAgainstRows(watcher)).toEqual([]);
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(status).toHaveAttribute("data-status", "running");

  // The canary upgrades; the included cluster is refused by its CVO, and the rollout stops on the budget.
  const waves = page.getByTestId("wave");
  await expect(watched.locator('tr[data-state="succeeded"]')).toContainText("wave-east", { timeout: 90_000 });
  await snap(page, testInfo, "71-rollout-running");
  await expect(status).toHaveAttribute("data-status", "paused", { timeout: 60_000 });
  // It joined the canaries' wave (the last), which tolerates no failure: that is what stopped it.
  await expect(status).toContainText("wave-west-0002 failed in canaries, which tolerates no failure");
  await expect(page.getByTestId("failure-budget")).toHaveText("Failures: 1 of 0 tolerated");
  // "Paused – 1 cluster failed" shows the failed row, on both pages, without a reload.
  for (const p of [page, watcher]) {
    const failed = p.getByTestId("rollout-clusters").locator('tr[data-state="failed"]');
    await expect(failed).toContainText("wave-west-0002");
    await expect(failed).toContainText(/the cluster version operator refused 4\.19\.11: Preconditions failed/);
    await expect(failed).toContainText(DATE);
    await expect.poll(() => countsAgainstRows(p)).toEqual([]);
  }
  await expect(watcher.getByTestId("rollout-counts").locator('li[data-state="failed"]')).toHaveAttribute("data-count", "1");
  await expect(watched.locator('tr[data-state="succeeded"]')).toContainText("wave-east");
  await expect(waves.first()).toHaveAttribute("data-state", "failed");
  await snap(page, testInfo, "72-rollout-paused");

  // The approver skips the failed clusters as listed (the names shown are the names sent), with a reason, and resumes.
  await hydrated(page);
  const decisions = page.getByTestId("cluster-decisions");
  await decisions.getByLabel("Clusters", { exact: true }).selectOption("failed");
  await expect(decisions.getByTestId("decision-clusters")).toContainText("Skip this cluster: wave-west-0002");
  await decisions.getByLabel("Why", { exact: true }).fill("4.17 goes through 4.18 first");
  await decisions.getByRole("button", { name: "Skip" }).click();
  await expect(decisions).toContainText("Skip: wave-west-0002");
  await expect(page.getByTestId("failure-budget")).toHaveText("Failures: 0 of 0 tolerated");
  // The page left open shows the skip, and the summary still matches the rows.
  const skipped = watched.locator('tr[data-state="skipped"]');
  await expect(skipped).toContainText("skipped by ro-approver: 4.17 goes through 4.18 first");
  await expect(watched.locator('tr[data-state="failed"]')).toHaveCount(0);
  await expect.poll(() => countsAgainstRows(watcher)).toEqual([]);
  await page.getByRole("button", { name: "Resume" }).click();
  await expect(status).toHaveAttribute("data-status", "completed", { timeout: 60_000 });

  // Ended with a cluster skipped: it does not read as a success, on either page.
  for (const p of [page, watcher]) {
    await expect(p.getByTestId("rollout-status")).toHaveAttribute("data-status", "completed", { timeout: 15_000 });
    await expect(p.getByRole("heading", { name: "Completed: 1 of 2 clusters succeeded" })).toBeVisible();
    await expect(p.getByTestId("wave")).toHaveCount(1);
    await expect(p.getByTestId("wave").first()).toHaveAttribute("data-state", "partly-skipped");
    await expect(p.getByTestId("wave").first()).toHaveText(/Partly skipped · 2 clusters \(1 succeeded, 1 skipped\)$/);
    await expect(p.getByTestId("rollout-counts").locator('li[data-state="succeeded"]')).toHaveAttribute("data-count", "1");
    await expect(p.getByTestId("rollout-counts").locator('li[data-state="skipped"]')).toHaveAttribute("data-count", "1");
    await expect.poll(() => countsAgainstRows(p)).toEqual([]);
  }
  await snap(watcher, testInfo, "73-rollout-ended-with-a-skip");
  await watcherContext.close();

  // The cluster's page lists the rollout, with what happened there.
  await page.goto("/clusters/wave-west-0002");
  await expect(page.getByTestId("cluster-rollout").first()).toContainText("Skipped: skipped by ro-approver");
});
