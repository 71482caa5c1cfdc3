import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, ensureUser, register, setNodeDisk, signIn, signOut, snap } from "./helpers";

// Runs after the read-only specs (file order): it upgrades prod-east in the shared simulator.
const TECH = { username: "site-tech", password: "site technician password", role: "technician" };
const APPROVER = { username: "bundle-approver", password: "bundle approver password", role: "approver" };
const NODE = "ip-10-0-33-150.ec2.internal";

const hex = (c: string) => c.repeat(64);
const manifest = {
  apiVersion: "fleetskew.io/v1",
  kind: "UpgradeBundle",
  release: { version: "4.19.11", image: `quay.io/openshift-release-dev/ocp-release@sha256:${hex("e")}` },
  images: ["a", "b", "c"].map((c) => ({
    name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex(c)}`,
    sizeBytes: 2 * 1024 ** 3,
  })),
  createdAt: "2026-11-01T09:00:00Z",
};

test("a technician applies a vetted bundle, follows every node through a disk failure, and an admin starts the upgrade", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  await register(request, ["prod-east"]);
  await ensureUser(request, TECH);
  await ensureUser(request, APPROVER);
  const file = testInfo.outputPath("bundle-4.19.11.json");
  writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`);
  const digest = createHash("sha256")
    .update(`${JSON.stringify(manifest, null, 2)}\n`)
    .digest("hex");

  // The technician uploads a manifest nobody vetted: refused, with the digest to pass on.
  await signIn(page, TECH.username, TECH.password);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Bundles" }).click();
  await page.getByLabel("Bundle manifest (JSON file)").setInputFiles(file);
  await expect(page.getByRole("alert").filter({ hasText: "has not been vetted" })).toBeVisible();
  await expect(page.getByLabel("Refused digest")).toHaveText(`sha256:${digest}`);
  await snap(page, testInfo, "40-bundle-unvetted");
  await signOut(page);

  // An approver vets that digest.
  await signIn(page, APPROVER.username, APPROVER.password);
  await page.goto("/bundles");
  const vet = page.getByRole("form", { name: "Vet a bundle" });
  await vet.getByLabel("Digest").fill(`sha256:${digest}`);
  await vet.getByLabel("Why it is trusted").fill("4.19.11 mirrored to the plant registry, CHG-2231");
  await vet.getByRole("button", { name: "Vet bundle" }).click();
  await expect(vet.getByRole("status")).toContainText(`Vetted sha256:${digest}`);
  await signOut(page);

  // The technician uploads it again, checks the cluster and reads the warnings.
  await signIn(page, TECH.username, TECH.password);
  await page.goto("/bundles");
  await page.getByLabel("Bundle manifest (JSON file)").setInputFiles(file);
  await expect(page.getByRole("status").filter({ hasText: "Bundle for OpenShift 4.19.11" })).toContainText("3 images, 6.0 GiB");
  await page.getByLabel("Cluster", { exact: true }).selectOption("prod-east");
  await page.getByRole("button", { name: "Check the cluster" }).click();
  const prechecks = page.getByRole("region", { name: "Prechecks" });
  await expect(prechecks.locator('[data-check="always-pull-pods"]')).toHaveAttribute("data-status", "warn");
  await expect(prechecks.locator('[data-check="always-pull-pods"]')).toContainText("openshift-marketplace/redhat-operators-7x9kq");
  await expect(prechecks.locator('[data-check="disk-space"][data-status="pass"]').first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Apply bundle" })).toBeDisabled();
  await page.getByLabel("I have read the warnings above and want to apply the bundle anyway.").check();
  await snap(page, testInfo, "41-bundle-prechecks");
  await page.getByRole("button", { name: "Apply bundle" }).click();
  await expect(page).toHaveURL(/\/bundles\/applications\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "OpenShift 4.19.11 on prod-east" })).toBeVisible();

  // The disk of one node fills up while it pulls: the page says so, and what to do.
  await setNodeDisk(request, "prod-east", NODE, "20Gi");
  const row = page.locator(`tr[data-node="${NODE}"]`);
  await expect(row).toHaveAttribute("data-state", "failed", { timeout: 20_000 });
  await expect(row).toContainText("failed: not enough disk");
  await expect(row).toContainText("Free disk space on the node");
  await expect(page.getByRole("alert").filter({ hasText: "could not pre-load the images" })).toBeVisible();
  await snap(page, testInfo, "42-bundle-disk-failure");

  // Space is freed; the MCO retries and every node finishes.
  await setNodeDisk(request, "prod-east", NODE, "114345831029");
  const progress = page.getByRole("progressbar", { name: "Nodes with the images" });
  await expect(progress).toHaveAttribute("aria-valuetext", /^(\d+) of \1 nodes done$/, { timeout: 45_000 });
  await expect(page.locator("tr[data-node]")).toHaveCount(await page.locator('tr[data-state="done"]').count());
  await snap(page, testInfo, "43-bundle-all-done");
  await signOut(page);

  // An admin starts the upgrade.
  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/bundles");
  await page
    .getByRole("table", { name: "Bundle applications" })
    .getByRole("row", { name: /prod-east/ })
    .getByRole("link", { name: "Follow" })
    .click();
  await page.getByRole("button", { name: "Start upgrade", exact: true }).click();
  await expect(page.getByText(/Upgrading to 4\.19\.11, started by admin/)).toBeVisible();
  await snap(page, testInfo, "44-bundle-upgrading");

  // Each step is in the audit log.
  await page.goto("/audit");
  await page.getByRole("combobox", { name: "What" }).selectOption("bundle.");
  for (const action of ["bundle.upload", "bundle.vet", "bundle.apply", "bundle.upgrade.start"])
    await expect(page.getByRole("row").filter({ hasText: action }).first()).toBeVisible();
});
