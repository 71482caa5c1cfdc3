import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { ADMIN_PASSWORD, ensureUser, register, setNodeDisk, signIn, signOut, simulatedCluster, snap, WORKFLOW_FLEET } from "./helpers";

// Upgrades a cluster of its own (prod-east of the workflow fleet, registered as bundle-east): no other spec sees it.
const CLUSTER = { name: "bundle-east", context: "prod-east", fleet: WORKFLOW_FLEET() };
const TECH = { username: "site-tech", password: "site technician password", role: "technician" };
const APPROVER = { username: "bundle-approver", password: "bundle approver password", role: "approver" };
const NODE = "ip-10-0-33-150.ec2.internal";

const hex = (c: string) => c.repeat(64);
const RELEASE_IMAGE = `quay.io/openshift-release-dev/ocp-release@sha256:${hex("e")}`;
const manifest = {
  apiVersion: "fleetskew.io/v1",
  kind: "UpgradeBundle",
  release: { version: "4.19.11", image: RELEASE_IMAGE },
  // The release image is listed with the others: it is pinned too, and its size counts.
  images: [
    { name: RELEASE_IMAGE, sizeBytes: 2 * 1024 ** 3 },
    ...["a", "b"].map((c) => ({ name: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hex(c)}`, sizeBytes: 2 * 1024 ** 3 })),
  ],
  createdAt: "2026-11-01T09:00:00Z",
};

/** Sets a simulated node's Ready condition through the cluster's own API (a node rebooting, or back). */
async function setNodeReady(request: APIRequestContext, node: string, ready: boolean) {
  const { server, token } = simulatedCluster(CLUSTER.context, CLUSTER.fleet);
  const headers = { authorization: `Bearer ${token}` };
  const current = await request.get(`${server}/api/v1/nodes/${node}`, { headers, ignoreHTTPSErrors: true });
  expect(current.status()).toBe(200);
  const conditions = ((await current.json()).status.conditions as { type: string; status: string }[]).map((c) =>
    c.type === "Ready" ? { ...c, status: ready ? "True" : "False" } : c,
  );
  const response = await request.patch(`${server}/api/v1/nodes/${node}/status`, {
    headers: { ...headers, "content-type": "application/merge-patch+json" },
    data: JSON.stringify({ status: { conditions } }),
    ignoreHTTPSErrors: true,
  });
  expect(response.status()).toBe(200);
}

/** Creates or deletes a PinnedImageSet on a simulated cluster through its own API (someone else pinning images). */
async function otherPinnedImageSet(request: APIRequestContext, name: string, present: boolean) {
  const { server, token } = simulatedCluster(CLUSTER.context, CLUSTER.fleet);
  const base = `${server}/apis/machineconfiguration.openshift.io/v1/pinnedimagesets`;
  const headers = { authorization: `Bearer ${token}` };
  const response = present
    ? await request.post(base, {
        headers,
        data: {
          apiVersion: "machineconfiguration.openshift.io/v1",
          kind: "PinnedImageSet",
          metadata: { name, labels: { "machineconfiguration.openshift.io/role": "master" } },
          spec: { pinnedImages: [{ name: `quay.io/example/monitoring@sha256:${hex("9")}` }] },
        },
        ignoreHTTPSErrors: true,
      })
    : await request.delete(`${base}/${name}`, { headers, ignoreHTTPSErrors: true });
  expect(response.status()).toBeLessThan(300);
}

test("a technician applies a vetted bundle, follows every node through a disk failure, and an admin starts the upgrade", async ({
  page,
  request,
}, testInfo) => {
  // On a loaded machine the follower may take a while to mark the application ready after the last node.
  test.setTimeout(240_000);
  await register(request, [CLUSTER]);
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

  // One node is rebooting when the technician arrives: the MCO pulls nothing onto it until it is Ready again,
  // so whatever happens to its disk meanwhile is seen when it comes back, however fast the others pull.
  await setNodeReady(request, NODE, false);

  // The technician uploads it again, checks the cluster and reads the warnings.
  await signIn(page, TECH.username, TECH.password);
  await page.goto("/bundles");
  await page.getByLabel("Bundle manifest (JSON file)").setInputFiles(file);
  await expect(page.getByRole("status").filter({ hasText: "Bundle for OpenShift 4.19.11" })).toContainText("3 images, 6.0 GiB");
  await page.getByLabel("Cluster", { exact: true }).fill(CLUSTER.name);
  await page.getByRole("button", { name: "Check the cluster" }).click();
  const prechecks = page.getByRole("region", { name: "Prechecks" });
  await expect(prechecks.locator('[data-check="always-pull-pods"]')).toHaveAttribute("data-status", "warn");
  await expect(prechecks.locator('[data-check="always-pull-pods"]')).toContainText("openshift-marketplace/redhat-operators-7x9kq");
  await expect(prechecks.locator('[data-check="disk-space"][data-status="pass"]').first()).toBeVisible();
  await expect(prechecks.locator('[data-check="nodes-not-ready"]')).toContainText(NODE);
  await expect(page.getByRole("button", { name: "Apply bundle" })).toBeDisabled();
  await page.getByLabel("I have read the warnings above and want to apply the bundle anyway.").check();
  await snap(page, testInfo, "41-bundle-prechecks");

  // Someone pins other images after the technician read the warnings: that new warning was not confirmed.
  await otherPinnedImageSet(request, "late-monitoring-images", true);
  await page.getByRole("button", { name: "Apply bundle" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "changed since you checked it" })).toBeVisible();
  await expect(prechecks.locator('[data-check="existing-pinned-image-sets"][data-new="true"]')).toContainText("late-monitoring-images");
  await expect(page.getByRole("button", { name: "Apply bundle" })).toBeDisabled();
  await page.getByLabel("I have read the warnings above and want to apply the bundle anyway.").check();
  await page.getByRole("button", { name: "Apply bundle" }).click();
  await expect(page).toHaveURL(/\/bundles\/applications\/[0-9a-f-]{36}$/);
  await otherPinnedImageSet(request, "late-monitoring-images", false);
  await expect(page.getByRole("heading", { name: `OpenShift 4.19.11 on ${CLUSTER.name}` })).toBeVisible();

  // The rebooting node waits; its disk fills up meanwhile, and when it is back the MCO refuses to pull: the page says so, and what to do.
  const row = page.locator(`tr[data-node="${NODE}"]`);
  await expect(row).toContainText("waiting: node not ready");
  await setNodeDisk(request, CLUSTER, NODE, "20Gi");
  await setNodeReady(request, NODE, true);
  await expect(row).toHaveAttribute("data-state", "failed", { timeout: 20_000 });
  await expect(row).toContainText("failed: not enough disk");
  // Allocatable ephemeral storage is what the MCO reads, and deleting files does not raise it.
  await expect(row).toContainText("grow the node's disk or use a smaller bundle");
  await expect(page.getByRole("alert").filter({ hasText: "could not pre-load the images" })).toBeVisible();
  await snap(page, testInfo, "42-bundle-disk-failure");

  // The disk is grown; the MCO retries and every node finishes.
  await setNodeDisk(request, CLUSTER, NODE, "114345831029");
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
    .getByRole("row", { name: new RegExp(CLUSTER.name) })
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
