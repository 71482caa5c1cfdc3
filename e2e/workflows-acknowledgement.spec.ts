import { expect, test } from "@playwright/test";
import { ensureUser, hydrated, register, signIn, signOut, snap, WORKFLOW_FLEET } from "./helpers";

// Acknowledges the boot image of a cluster of its own (prod-east-422 of the workflow fleet, registered as ack-east):
// no other spec sees it.
const CLUSTER = { name: "ack-east", context: "prod-east-422", fleet: WORKFLOW_FLEET() };
const TECH = { username: "ack-tech", password: "ack technician password", role: "technician" };
const APPROVER = { username: "ack-approver", password: "ack approver password", role: "approver" };

test("a technician requests an acknowledgement for a cluster at 4.22, cannot approve it, an approver does, and Upgradeable turns true", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(90_000);
  await register(request, [CLUSTER]);
  await ensureUser(request, TECH);
  await ensureUser(request, APPROVER);

  await signIn(page, TECH.username, TECH.password);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Acknowledgements" }).click();
  await expect(page).toHaveURL(/\/acknowledgements$/);
  // Listed once the collector has read the cluster (a few seconds after registering).
  const candidate = page.locator(`li[data-cluster="${CLUSTER.name}"]`);
  await expect(async () => {
    await page.reload();
    await expect(candidate).toContainText("minor updates blocked", { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(candidate).toContainText("OCP boot image version 4.12.7, which is below the minimum required version 4.13.0");
  await candidate.getByRole("button", { name: "Request acknowledgement" }).click();

  const form = page.getByRole("form", { name: `Request an acknowledgement for ${CLUSTER.name}` });
  // It opened below the button: it is brought into view.
  await expect(form).toBeInViewport();
  await form.getByLabel("An RHCOS build").check();
  // Sent empty: every empty field is marked, each with its sentence beside it (never "evidence: …").
  await form.getByRole("button", { name: "Send for approval" }).click();
  await expect(form.getByRole("textbox", { name: "RHCOS build" })).toHaveAttribute("aria-invalid", "true");
  await expect(form.locator("#ack-value-error")).toHaveText(/^Say which RHCOS build the oldest machine boots/);
  await expect(form.getByLabel("Evidence")).toHaveAttribute("aria-invalid", "true");
  await expect(form.locator("#ack-evidence-error")).toHaveText(/^Describe the evidence/);
  await form.getByRole("textbox", { name: "RHCOS build" }).fill("9.6.2025");
  await form.getByLabel("Evidence").fill("Worker MachineSets moved to ami-0a1b2c3d (RHCOS 9.6.20250701-0) on 2026-11-18, change CHG-1234.");
  await form.getByRole("button", { name: "Send for approval" }).click();
  // The API's own format rule, before anything reaches the cluster.
  await expect(form.locator("#ack-value-error")).toHaveText("The RHCOS build must be between 14 and 21 characters long");
  await form.getByRole("textbox", { name: "RHCOS build" }).fill("9.6.20250701-0");
  await form.getByLabel(/prod-east-7xk2p-worker-us-east-1a/).check();
  await form.getByRole("button", { name: "Send for approval" }).click();
  const request422 = page.locator('li[data-request][data-status="pending"]').filter({ hasText: CLUSTER.name });
  await expect(request422).toContainText("Waiting for approval");
  await expect(request422).toContainText("Predicted at 4.22.3: Upgradeable True");
  await snap(page, testInfo, "50-ack-requested");

  // The requester cannot approve it: no button, and the API refuses.
  await expect(request422.getByRole("button", { name: "Approve" })).toHaveCount(0);
  const id = await request422.getAttribute("data-request");
  const refused = await page.request.post(`/api/v1/acknowledgements/${id}/approve`, { data: { comment: "" } });
  expect(refused.status()).toBe(403);
  await signOut(page);

  // An approver approves it; the cluster takes it and the MCO lifts the block.
  await signIn(page, APPROVER.username, APPROVER.password);
  await page.goto("/acknowledgements");
  await hydrated(page);
  const pending = page.locator(`li[data-request="${id}"]`);
  await pending.getByLabel("Comment").fill("AMI ids checked in the AWS console");
  await pending.getByRole("button", { name: "Approve" }).click();
  await expect(pending).toHaveAttribute("data-status", "applied", { timeout: 20_000 });
  await expect(pending.getByLabel("Cluster's answer")).toContainText("no boot-image block (Upgradeable=True)", { timeout: 20_000 });
  await snap(page, testInfo, "51-ack-applied");

  // The next sweep sees it: the cluster no longer needs an acknowledgement, and its skew is within the limit.
  await expect(async () => {
    await page.reload();
    await expect(page.locator(`li[data-cluster="${CLUSTER.name}"]`)).toHaveCount(0, { timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await page.goto("/fleet");
  // The sweep's change reaches the fleet list at once in this process, or at the page's next refresh.
  await expect(page.getByRole("table", { name: "Clusters" }).getByRole("row").filter({ hasText: CLUSTER.name })).toContainText(
    "Within limit",
    { timeout: 30_000 },
  );

  // The audit page shows each step.
  await page.goto("/audit");
  await page.getByRole("textbox", { name: "Target" }).fill(CLUSTER.name);
  for (const [action, actor] of [
    ["acknowledgement.request", TECH.username],
    ["acknowledgement.approve", APPROVER.username],
    ["cluster.write", APPROVER.username],
  ])
    await expect(page.getByRole("row").filter({ hasText: action }).filter({ hasText: actor }).first()).toBeVisible();
  await snap(page, testInfo, "52-ack-audit");
});
