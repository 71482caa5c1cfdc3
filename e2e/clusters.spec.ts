import { existsSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { adminApi, ADMIN_PASSWORD, signIn, snap } from "./helpers";

const KUBECONFIG = process.env.FLEETSKEW_E2E_KUBECONFIG!;
// prod-east of the shared fleet under a name of its own: the other specs' prod-east stays as they registered it.
const NAME = "registered-east";

test("an admin registers a simulated cluster from its kubeconfig and sees its version and served kinds", async ({
  page,
  request,
}, testInfo) => {
  await expect.poll(() => existsSync(KUBECONFIG)).toBe(true);
  // A retried run finds the cluster its first attempt registered.
  await adminApi(request);
  await request.delete(`/api/v1/clusters/${NAME}`);
  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Clusters" }).click();
  await expect(page.getByRole("heading", { name: "Clusters", exact: true })).toBeVisible();

  const form = page.getByRole("form", { name: "Register a cluster" });
  await form.getByLabel("Kubeconfig file").setInputFiles(KUBECONFIG);
  const contextSelect = form.getByLabel("Context");
  await expect(contextSelect.locator("option", { hasText: "prod-east-422" })).toHaveCount(1);
  await contextSelect.selectOption("prod-east");
  await form.getByLabel("Name", { exact: true }).fill(NAME);
  await form.getByLabel("Display name").fill("Production East");
  await form.getByLabel("Labels").fill("env=prod, region=us-east-1");

  await form.getByRole("button", { name: "Test connection" }).click();
  const report = form.getByRole("region", { name: "Connection test result" });
  await expect(report).toContainText("OpenShift 4.19.10");
  await expect(report).toContainText("platform AWS");
  // A 4.19 cluster serves neither InternalReleaseImage (v1 from 4.22) nor OSImageStream (v1 from 4.23); a kind not served opens the list.
  await expect(report).toContainText("Kinds served: 16 of 18 (not on this version: InternalReleaseImage, OSImageStream)");
  await expect(report.getByRole("row", { name: /MachineConfigNode machineconfiguration\.openshift\.io\/v1 yes/ })).toHaveCount(1);
  await snap(page, testInfo, "07-cluster-connection-test");

  await form.getByRole("button", { name: "Register cluster" }).click();
  await expect(form.getByRole("status")).toHaveText(`Registered ${NAME}.`);
  const row = page.locator(`tr[data-cluster="${NAME}"]`);
  await expect(row).toContainText("Production East");
  await expect(row).toContainText("Reachable");
  await expect(row).toContainText("env=prod");
  await snap(page, testInfo, "08-clusters-registered");

  // Edit the display name and labels.
  await row.getByRole("button", { name: `Edit ${NAME}` }).click();
  const edit = page.getByRole("form", { name: `Edit ${NAME}` });
  await edit.getByLabel("Display name").fill("Production East (us-east-1)");
  await edit.getByLabel("Labels").fill("env=prod, tier=gold");
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(row).toContainText("Production East (us-east-1)");
  await expect(row).toContainText("tier=gold");

  // A bad kubeconfig gets a message, and nothing is registered.
  await form.getByLabel("Kubeconfig", { exact: true }).fill("apiVersion: v1\nkind: Config\ncontexts: []\n");
  await form.getByLabel("Name", { exact: true }).click();
  await expect(form.getByRole("alert")).toHaveText("the kubeconfig has no contexts");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Fleet" }).click();
  await expect(page.getByRole("table", { name: "Clusters" }).getByRole("link", { name: "Production East (us-east-1)" })).toBeVisible();
  await snap(page, testInfo, "09-fleet-with-cluster");
});
