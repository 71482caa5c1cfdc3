import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { releaseSizedBundle, releaseSizedManifest } from "../server/simulator/scenarios/releaseBundle";
import { adminApi, ensureUser, register, signIn, snap, WORKFLOW_FLEET } from "./helpers";

// A cluster of its own (plant-north of the workflow fleet): its mirror holds a release-sized bundle, and its
// simulated MCO gives each prefetch attempt one simulated minute, so every node outlasts the timeout.
const CLUSTER = { name: "plant-north", context: "plant-north", fleet: WORKFLOW_FLEET() };
const TECH = { username: "north-tech", password: "north site technician password", role: "technician" };
const CONTROL_PLANE = "ip-10-0-12-34.ec2.internal";

const bundle = releaseSizedBundle();
const manifest = releaseSizedManifest(bundle);

test("a release-sized bundle that outlasts the MCO's prefetch timeout is shown still pulling, the retry explained", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  await register(request, [CLUSTER]);
  await ensureUser(request, TECH);
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  const file = testInfo.outputPath(`bundle-${bundle.version}-release-sized.json`);
  writeFileSync(file, text);
  const digest = createHash("sha256").update(text).digest("hex");
  await adminApi(request);
  const vetted = await request.post("/api/v1/bundles/vetted", {
    data: { digest: `sha256:${digest}`, note: "release-sized 4.19.11 mirrored at plant north" },
  });
  expect([201, 409]).toContain(vetted.status());

  await signIn(page, TECH.username, TECH.password);
  await page.goto("/bundles");
  await page.getByLabel("Bundle manifest (JSON file)").setInputFiles(file);
  const summary = page.getByRole("status").filter({ hasText: `Bundle for OpenShift ${bundle.version}` });
  await expect(summary).toContainText(`${bundle.images.length} images`);
  await expect(summary).toContainText("with the layers they share counted once");
  await page.getByLabel("Cluster", { exact: true }).fill(CLUSTER.name);
  await page.getByRole("button", { name: "Check the cluster" }).click();
  const prechecks = page.getByRole("region", { name: "Prechecks" });
  // Disk as the MCO judges it: shared layers counted once, so the nodes have room.
  await expect(prechecks.locator('[data-check="disk-space"][data-status="pass"]').first()).toContainText("each layer counted once");
  const confirm = page.getByLabel("I have read the warnings above and want to apply the bundle anyway.");
  if (await confirm.isVisible()) await confirm.check();
  await page.getByRole("button", { name: "Apply bundle" }).click();
  await expect(page).toHaveURL(/\/bundles\/applications\/[0-9a-f-]{36}$/);

  // The control-plane node pulls on one worker: every attempt runs out of time and the MCO carries on.
  const row = page.locator(`tr[data-node="${CONTROL_PLANE}"]`);
  await expect(row).toContainText("still pulling: the MCO retries", { timeout: 30_000 });
  await expect(row).toHaveAttribute("data-state", "pulling");
  await expect(row).toContainText("Nothing to do. The MCO gives each prefetch attempt");
  await expect(row).toContainText("keeping the images already pulled");
  await expect(row).not.toContainText("registry not reachable");
  await expect(page.getByRole("alert").filter({ hasText: "could not pre-load the images" })).toHaveCount(0);
  await expect(page.getByText(/still pulling in another attempt/)).toBeVisible();
  await expect(page.locator('tr[data-state="failed"]')).toHaveCount(0);
  await snap(page, testInfo, "45-bundle-prefetch-timeout-retrying");
});
