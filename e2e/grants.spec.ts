import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { parse } from "yaml";
import { ADMIN_PASSWORD, adminApi, ensureUser, hydrated, SHARED_FLEET, signIn, signOut, snap } from "./helpers";

/**
 * An admin gives a person a grant over one cluster set on the Users page, confirming it; that
 * person then sees their grant in the top bar and only that set's clusters in the fleet list.
 * Then two teams: that technician plans over the whole fleet and gets their set only; the other
 * set's cluster page is a 404 for them; an approver over the other set cannot approve the plan.
 * The two clusters are registered under names of this spec's own, labelled into two sets (the shared
 * fleet's clusters do not change, so a second registration of one is harmless).
 */
test.describe.configure({ mode: "serial" });

const PERSON = { username: "emea-tech", password: "emea technician password", role: "viewer" };
const SET_LABEL = "cluster.open-cluster-management.io/clusterset";
const IN_SET = "grants-emea-1";
const OUT_OF_SET = "grants-apac-1";

/** Two clusters of the shared fleet under names of this spec's own, labelled as clusters of two sets. */
async function registerSets(request: APIRequestContext) {
  const kubeconfig = readFileSync(SHARED_FLEET(), "utf8");
  const contexts = (parse(kubeconfig) as { contexts: { name: string }[] }).contexts
    .map((c) => c.name)
    .filter((n) => !n.startsWith("prod-east"));
  const clusters = [
    // prod-east (4.19.10, offered 4.19.11) under a name of this spec's own: a plan over it has a cluster to include.
    { name: IN_SET, context: "prod-east", set: "grants-emea" },
    { name: OUT_OF_SET, context: contexts[1]!, set: "grants-apac" },
  ];
  for (const c of clusters) {
    if ((await request.get(`/api/v1/clusters/${c.name}`)).status() !== 404) continue;
    const created = await request.post("/api/v1/clusters", {
      data: { name: c.name, labels: { [SET_LABEL]: c.set }, source: { type: "kubeconfig", kubeconfig, context: c.context } },
    });
    expect(created.status()).toBe(201);
  }
}

test("an admin gives a person technician over one cluster set, confirming it, and they see only that set", async ({
  page,
  request,
}, testInfo) => {
  await adminApi(request);
  await registerSets(request);
  await ensureUser(request, PERSON);

  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/admin");
  await hydrated(page);
  const row = page.locator(`tr[data-username="${PERSON.username}"]`);
  await expect(row.getByRole("list", { name: `Grants of ${PERSON.username}` })).toHaveText("viewer · whole fleet");

  // A role change waits for confirmation: nothing is sent until it is confirmed (here it is not).
  await row.getByLabel(`Role of ${PERSON.username}`).selectOption("approver");
  await expect(row.getByRole("alertdialog", { name: `Confirm the role of ${PERSON.username}` })).toContainText(
    `Make ${PERSON.username} an approver over the whole fleet?`,
  );
  await row.getByRole("button", { name: "Cancel" }).click();
  await expect(row.getByLabel(`Role of ${PERSON.username}`)).toHaveValue("viewer");

  await row.getByRole("button", { name: `Edit the grants of ${PERSON.username}` }).click();
  const editor = page.getByRole("group", { name: `Grants of ${PERSON.username}` });
  await editor.getByLabel("Role of grant 1").selectOption("technician");
  // A scope that is not one is explained beside the field, and cannot be saved.
  await editor.getByLabel("Scope of grant 1").fill("skew=blocked");
  await expect(editor.getByText(/"skew=blocked" is not a scope term/)).toBeVisible();
  await expect(editor.getByRole("button", { name: "Save grants" })).toBeDisabled();
  await editor.getByLabel("Scope of grant 1").fill("clusterSet=grants-emea");
  await expect(editor.getByRole("link", { name: "See the clusters grant 1 covers in the fleet view" })).toHaveAttribute(
    "href",
    "/fleet?clusterSet=grants-emea",
  );
  await editor.getByRole("button", { name: "Save grants" }).click();
  const confirm = editor.getByRole("alertdialog", { name: `Confirm the grants of ${PERSON.username}` });
  await expect(confirm).toContainText(`Replace everything ${PERSON.username} holds with: technician · clusterSet=grants-emea?`);
  await snap(page, testInfo, "60-grants-confirm");
  await confirm.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("status")).toContainText(`${PERSON.username} now holds technician · clusterSet=grants-emea.`);
  await expect(row.getByRole("list", { name: `Grants of ${PERSON.username}` })).toHaveText("technician · clusterSet=grants-emea");
  await expect(row.getByLabel(`Role of ${PERSON.username}`)).toHaveValue("technician");
  await snap(page, testInfo, "61-grants-given");
  await signOut(page);

  await signIn(page, PERSON.username, PERSON.password);
  await expect(page.getByTestId("signed-in-as")).toHaveText(`${PERSON.username} · technician · clusterSet=grants-emea`);
  const table = page.getByRole("table", { name: "Clusters" });
  await expect(table.locator(`a[href="/clusters/${IN_SET}"]`)).toBeVisible({ timeout: 30_000 });
  // Only the set's cluster: the other set's, and every cluster other specs registered, are not listed.
  await expect(table.locator('a[href^="/clusters/"]')).toHaveCount(1);
  await expect(table.locator(`a[href="/clusters/${OUT_OF_SET}"]`)).toHaveCount(0);
  await snap(page, testInfo, "62-grants-fleet");
});

const APAC_APPROVER = { username: "apac-approver", password: "apac approver password", role: "viewer" };

/** Replaces a person's grants as the admin does on the Users page (needs an admin session on `request`). */
async function setGrants(request: APIRequestContext, username: string, grants: { role: string; scope: string }[]) {
  const users = (await (await request.get("/api/v1/users")).json()) as { users: { id: string; username: string }[] };
  const id = users.users.find((u) => u.username === username)!.id;
  const put = await request.put(`/api/v1/users/${id}/grants`, { data: { grants } });
  expect(put.status(), await put.text()).toBe(200);
}

const errorOf = async (response: APIResponse) => ((await response.json()) as { error: string }).error;

test("two teams: a whole-fleet plan covers the planner's set, the other set is a 404, and the other set's approver cannot approve", async ({
  page,
  request,
  playwright,
  baseURL,
}, testInfo) => {
  await adminApi(request);
  await registerSets(request);
  await ensureUser(request, PERSON);
  await ensureUser(request, APAC_APPROVER);
  await setGrants(request, PERSON.username, [{ role: "technician", scope: "clusterSet=grants-emea" }]);
  // The APAC approver reads the whole fleet, so the plan is theirs to see, but approves APAC only.
  await setGrants(request, APAC_APPROVER.username, [
    { role: "approver", scope: "clusterSet=grants-apac" },
    { role: "viewer", scope: "" },
  ]);

  await signIn(page, PERSON.username, PERSON.password);
  expect((await page.goto(`/clusters/${IN_SET}`))?.status()).toBe(200);
  const other = await page.goto(`/clusters/${OUT_OF_SET}`);
  expect(other?.status()).toBe(404);
  await expect(page.getByText(OUT_OF_SET)).toHaveCount(0);
  await snap(page, testInfo, "63-grants-other-set-404");
  // The CSV holds the set's cluster only.
  const csv = await (await page.request.get("/api/v1/fleet/clusters.csv")).text();
  expect(
    csv
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.split(",")[0]!.replace(/"/g, "")),
  ).toEqual([IN_SET]);

  // A plan over the whole fleet (the empty query) covers the planner's set only: to an update its cluster lists.
  const updatesOf = async () => {
    const detail = (await (await page.request.get(`/api/v1/clusters/${IN_SET}`)).json()) as {
      snapshot: { version: { availableUpdates: string[] } | null } | null;
    };
    return detail.snapshot?.version?.availableUpdates ?? [];
  };
  await expect.poll(async () => (await updatesOf()).length, { timeout: 60_000 }).toBeGreaterThan(0);
  let body: Record<string, unknown> | null = null;
  const tried: string[] = [];
  for (const target of await updatesOf()) {
    const candidate = { kind: "upgrade", target, selection: { query: "" } };
    const dry = await page.request.post("/api/v1/rollouts", { data: { ...candidate, dryRun: true } });
    tried.push(`${target}: ${dry.status()} ${await dry.text()}`);
    if (dry.status() === 400) continue; // every selected cluster excluded for this target: try the next
    expect(dry.status(), await dry.text()).toBe(200);
    const planned = (await dry.json()) as { waves: { clusters: string[] }[]; excluded: { cluster: string }[]; selected: number };
    expect(planned.selected).toBe(1);
    expect([...planned.waves.flatMap((w) => w.clusters), ...planned.excluded.map((e) => e.cluster)]).toEqual([IN_SET]);
    if (planned.waves.length) {
      body = candidate;
      break;
    }
  }
  expect(body, `no update ${IN_SET} lists takes it into a plan: ${tried.join("; ")}`).not.toBeNull();
  const saved = await page.request.post("/api/v1/rollouts", { data: body });
  expect(saved.status(), await saved.text()).toBe(201);
  const rollout = (await saved.json()) as { id: string; digest: string; included: number };
  expect(rollout.included).toBe(1);

  // The other set's approver sees the plan but may not approve it: the cluster is outside their approver scope.
  const apac = await playwright.request.newContext({ baseURL });
  expect((await apac.post("/api/v1/session", { data: APAC_APPROVER })).status()).toBe(200);
  const approve = await apac.post(`/api/v1/rollouts/${rollout.id}/approve`, { data: {}, headers: { "if-match": `"${rollout.digest}"` } });
  expect(approve.status()).toBe(403);
  expect(await errorOf(approve)).toBe("The rollout's one cluster is outside your approver scope (approver@clusterSet=grants-apac)");
  await apac.dispose();

  // The technician's own cluster is theirs to change; the APAC approver reads it but is told why it is not theirs.
  await page.goto(`/clusters/${IN_SET}`);
  await expect(page.getByRole("heading", { name: IN_SET, level: 1 })).toBeVisible();
  await expect(page.getByTestId("read-only")).toHaveCount(0);
  await signOut(page);
  await signIn(page, APAC_APPROVER.username, APAC_APPROVER.password);
  expect((await page.goto(`/clusters/${IN_SET}`))?.status()).toBe(200);
  await expect(page.getByTestId("read-only")).toHaveText(
    "You may read this cluster, not change it: changing it needs a technician grant over it",
  );

  // Nobody else is left with the plan: the admin aborts it.
  const abort = await request.post(`/api/v1/rollouts/${rollout.id}/abort`, { data: { comment: "A browser test's plan" } });
  expect(abort.status(), await abort.text()).toBe(200);
});
