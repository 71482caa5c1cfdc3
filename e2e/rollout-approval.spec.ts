import { expect, test } from "@playwright/test";
import { covers, NEVER_SAVED, requestFieldsByKind } from "../server/testing/requestFields";
import { adminApi, ensureUser, hydrated, register } from "./helpers";

// Two clusters of the rollout fleet under names of their own: prod-east takes 4.19.12, a z-stream it
// lists whether it still runs 4.19.10 or rollouts.spec.ts has taken it to 4.19.11 (specs run in any
// order); prod-east-422 already runs a newer release and is excluded. The plan's windows open once a year,
// so the approved rollout writes nothing while this spec runs.
const FLEET = process.env.FLEETSKEW_E2E_ROLLOUT_KUBECONFIG!;
const APPROVER = { username: "ap-approver", password: "approval approver password", role: "approver" };
const yearly = { schedule: "0 0 1 1 *", duration: "4h", timeZone: "Europe/Paris" };

test("the approver's page shows every setting of the plan, and approves only the version it showed", async ({ page, request }) => {
  test.setTimeout(180_000);
  await register(request, [
    { name: "appr-east", context: "prod-east", fleet: FLEET },
    { name: "appr-east-422", context: "prod-east-422", fleet: FLEET },
  ]);
  await ensureUser(request, APPROVER);
  await expect
    .poll(
      async () => {
        const list = (await (await request.get("/api/v1/clusters?q=appr-&limit=10")).json()) as { clusters: { version: string | null }[] };
        return list.clusters.filter((c) => c.version).length;
      },
      { timeout: 90_000 },
    )
    .toBe(2);

  // Planned by the admin (the approver may not approve a plan of their own), every setting set.
  await adminApi(request);
  // A retry finds the rollout an earlier attempt left running, which still holds both clusters.
  for (const name of ["appr-east", "appr-east-422"]) {
    const held = (await (await request.get(`/api/v1/clusters/${name}/rollouts`)).json()) as {
      rollouts: { id: string; finishedAt: string | null }[];
    };
    for (const r of held.rollouts.filter((r) => !r.finishedAt)) {
      await request.post(`/api/v1/rollouts/${r.id}/abort`, { data: { comment: "left by an earlier attempt" } });
    }
  }
  const created = await request.post("/api/v1/rollouts", {
    data: {
      kind: "upgrade",
      target: "4.19.12",
      acceptRisks: ["AWSOldBootImages"],
      selection: { query: "q=appr-" },
      strategy: {
        canaries: 0,
        maxConcurrency: 1,
        groupBy: "site",
        minSuccessTime: "45m",
        progressDeadline: "3h",
        maxFailures: "50%",
        onFailure: "continue",
        releaseEachWave: true,
      },
      windows: { default: yearly, label: "site", byValue: { east: yearly } },
    },
  });
  expect(created.status()).toBe(201);
  const rollout = (await created.json()) as {
    id: string;
    number: number;
    digest: string;
    settings: { field: string; label: string; value: string }[];
  };

  // Signed in as the approver (a password check is slow on purpose: give it time on a loaded machine).
  await page.goto("/login");
  await page.getByLabel("Username").fill(APPROVER.username);
  await page.getByLabel("Password").fill(APPROVER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/fleet$/, { timeout: 30_000 });
  await page.goto(`/rollouts/${rollout.number}`);
  await hydrated(page);
  const settings = page.getByTestId("rollout-settings");
  await expect(settings).toHaveAttribute("data-digest", rollout.digest);
  // Every setting the API answers is on the page, in the same words.
  const rows = settings.getByTestId("rollout-setting");
  await expect(rows).toHaveCount(rollout.settings.length);
  for (const [i, s] of rollout.settings.entries()) {
    await expect(rows.nth(i)).toHaveAttribute("data-field", s.field);
    await expect(rows.nth(i).locator("dt")).toHaveText(s.label);
    await expect(rows.nth(i).locator("dd")).toHaveText(s.value);
  }
  // And the page's rows show every field of an upgrade request (the selection as it was made).
  const shown = await rows.evaluateAll((els) => els.map((e) => e.getAttribute("data-field")!));
  const unshown = requestFieldsByKind()
    .upgrade!.filter((f) => !NEVER_SAVED[f] && f !== "selection.clusters")
    .filter((f) => !shown.some((s) => covers(s, f)));
  expect(unshown).toEqual([]);
  await expect(settings).toContainText("1 cluster in 1 wave; 1 excluded by their checks (see why)");
  await expect(settings.getByRole("link", { name: "1 excluded by their checks (see why)" })).toHaveAttribute(
    "href",
    `/rollouts/${rollout.number}?state=excluded`,
  );

  // The plan changes while the page is open: the admin includes the excluded cluster.
  const include = await request.post(`/api/v1/rollouts/${rollout.id}/clusters`, {
    data: { action: "include", clusters: ["appr-east-422"], comment: "checked by hand" },
  });
  expect(include.status()).toBe(200);
  await expect(settings.getByText("The plan changed while this page was open")).toBeVisible({ timeout: 15_000 });
  await page.getByRole("button", { name: "Approve and start" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "changed since it was reviewed" })).toBeVisible();
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "awaiting-approval");

  // Reviewed again (a fresh page): approved, with the version it showed.
  await page.reload();
  await hydrated(page);
  const current = await page.getByTestId("rollout-settings").getAttribute("data-digest");
  expect(current).not.toBe(rollout.digest);
  await page.getByRole("button", { name: "Approve and start" }).click();
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "running");
  const approved = (await (await request.get(`/api/v1/rollouts/${rollout.id}`)).json()) as {
    approvedDigest: string;
    windowsFrozen: boolean;
  };
  expect(approved).toMatchObject({ approvedDigest: current, windowsFrozen: true });
  await expect(page.getByTestId("rollout-settings")).toContainText("was fixed from its labels when the rollout was approved");

  const abort = await request.post(`/api/v1/rollouts/${rollout.id}/abort`, { data: { comment: "end of the approval check" } });
  expect(abort.status()).toBe(200);
});
