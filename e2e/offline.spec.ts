import { readdirSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, signIn, snap } from "./helpers";
import { formatDate } from "../lib/format";

const NAME = "site-12-offline";
const FIXTURES = path.join(__dirname, "../server/simulator/fixtures/prod-east");
const DUMPS = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json"))
  .map((f) => path.join(FIXTURES, f));

test("an admin imports an air-gapped site's object dumps and sees it in the fleet as an offline import", async ({
  page,
  request,
}, testInfo) => {
  // A retried run finds the cluster from the first attempt; a capture at the same time would be refused.
  expect((await request.post("/api/v1/session", { data: { username: "admin", password: ADMIN_PASSWORD } })).ok()).toBe(true);
  await request.delete(`/api/v1/clusters/${NAME}`);

  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
  await page.getByRole("navigation", { name: "Admin" }).getByRole("link", { name: "Clusters" }).click();

  const form = page.getByRole("form", { name: "Import an offline cluster" });
  await form.getByLabel("Name", { exact: true }).fill(NAME);
  await form.getByLabel("Labels").fill("site=plant-12");
  await form.getByLabel("Capture time").fill("2026-01-15T10:30:00");
  await form.getByLabel("Object dumps").setInputFiles(DUMPS);
  await form.getByRole("button", { name: "Import" }).click();

  // The capture time was typed in this browser's time zone; the console writes it as it writes every moment (in UTC).
  const captured = formatDate(await page.evaluate(() => new Date(2026, 0, 15, 10, 30, 0).toISOString()));
  await expect(form.getByRole("status")).toHaveText(
    `Imported ${NAME}: OpenShift 4.19.10, boot-image skew at risk (oldest boot image 4.12.7), captured ${captured}. Read 21 objects of 21 from 11 files.`,
  );
  await expect(form.getByRole("region", { name: "Import warnings" })).toContainText(
    "Not in the upload, so shown as not available: Infrastructure cluster",
  );
  const row = page.locator(`tr[data-cluster="${NAME}"]`);
  await expect(row).toContainText("Offline import");
  await expect(row).toContainText(`captured ${captured}`);
  await expect(row.getByRole("button", { name: `Test connection to ${NAME}` })).toHaveCount(0);
  await snap(page, testInfo, "30-offline-import");

  // A second import of the same capture is refused with the reason, and changes nothing.
  await form.getByLabel("Name", { exact: true }).fill(NAME);
  await form.getByLabel("Object dumps").setInputFiles(DUMPS);
  await form.getByRole("button", { name: "Import" }).click();
  await expect(form.getByRole("alert")).toContainText("a new capture must be newer");

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Fleet" }).click();
  const table = page.getByRole("table", { name: "Clusters" });
  const fleetRow = table.getByRole("row").filter({ has: page.locator(`a[href="/clusters/${NAME}"]`) });
  await expect(fleetRow).toContainText("offline import");
  await expect(fleetRow).toContainText("4.19.10");
  await expect(fleetRow).toContainText("At risk");
  await expect(fleetRow).toContainText("4.12.7");
  await expect(fleetRow).toContainText(`captured ${captured}`);
  await snap(page, testInfo, "31-fleet-offline");

  await fleetRow.getByRole("link", { name: NAME }).click();
  await expect(page).toHaveURL(new RegExp(`/clusters/${NAME}$`));
  const capturedTerm = page.locator("dt", { hasText: "Captured" });
  await expect(capturedTerm).toBeVisible();
  await expect(capturedTerm.locator("xpath=following-sibling::dd[1]")).toHaveText(captured);
  await expect(page.getByText("This is an offline cluster imported from object dumps")).toBeVisible();
  await snap(page, testInfo, "32-cluster-offline");
});
