import { readFileSync } from "node:fs";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { parse } from "yaml";
import { ADMIN_PASSWORD, adminApi, ensureUser, hydrated, SHARED_FLEET, signIn, signOut, snap } from "./helpers";

/**
 * An admin gives a person a grant over one cluster set on the Users page, confirming it; that
 * person then sees their grant in the top bar and only that set's clusters in the fleet list.
 * The two clusters are registered under names of this spec's own, labelled into two sets.
 */
test.describe.configure({ mode: "serial" });

const PERSON = { username: "emea-tech", password: "emea technician password", role: "viewer" };
const SET_LABEL = "cluster.open-cluster-management.io/clusterset";
const IN_SET = "grants-emea-1";
const OUT_OF_SET = "grants-apac-1";

/** Two contexts of the shared fleet that other specs do not register (not prod-east*), as clusters of two sets. */
async function registerSets(request: APIRequestContext) {
  const kubeconfig = readFileSync(SHARED_FLEET(), "utf8");
  const contexts = (parse(kubeconfig) as { contexts: { name: string }[] }).contexts
    .map((c) => c.name)
    .filter((n) => !n.startsWith("prod-east"));
  const clusters = [
    { name: IN_SET, context: contexts[0]!, set: "grants-emea" },
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
