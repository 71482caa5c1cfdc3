import { expect, test } from "@playwright/test";
import { ADMIN_PASSWORD, register, signIn, snap } from "./helpers";

const mc = (name: string, path: string, text: string) => `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: ${name}
  labels:
    machineconfiguration.openshift.io/role: worker
spec:
  config:
    ignition:
      version: 3.5.0
    storage:
      files:
        - path: ${path}
          mode: 420
          overwrite: true
          contents:
            source: data:,${encodeURIComponent(text)}
`;

test("the preview on prod-east shows what each change does to the worker pool", async ({ page, request }, testInfo) => {
  await register(request, ["prod-east"]);

  await signIn(page, "admin", ADMIN_PASSWORD);
  // From the cluster's page: the preview opens with that cluster chosen.
  await page.goto("/clusters/prod-east");
  await page.getByRole("link", { name: "Preview a MachineConfig here" }).click();
  const form = page.getByRole("form", { name: "Preview a MachineConfig" });
  const editor = form.getByLabel("MachineConfig (YAML or JSON)");

  // The selection is counted by the page's scripts: once it shows, they run, and what is typed next
  // is checked as it is typed (filling the editor while they start raced their first render).
  await expect(form.getByTestId("selection-count")).toHaveText("1 cluster matches: prod-east");
  // Syntax errors are shown as the user types, and block the preview.
  await editor.fill("kind: [unclosed");
  await expect(form.getByRole("alert")).toContainText("Line 1");
  await expect(form.getByRole("button", { name: "Preview on the matching clusters" })).toBeDisabled();

  const worker = page.getByRole("region", { name: "Preview for prod-east" }).locator('[data-pool="worker"]');
  // [MachineConfig, file, contents, worker verdict, the change's actions in the table, the fleet summary line]
  const cases: [string, string, string, string, string, RegExp][] = [
    [
      "99-worker-chrony",
      "/etc/chrony.conf",
      "server ntp.example.com iburst\n",
      "Restart chronyd.service, no drain",
      "Restart chronyd.service",
      /^Reboots 0 nodes in 0 clusters, no reboot in 1 cluster \(\d+ nodes: prod-east\)/,
    ],
    [
      "50-worker-sysctl",
      "/etc/sysctl.d/99-net.conf",
      "net.core.somaxconn = 1024\n",
      "Reboot",
      "Reboot",
      /^Reboots \d+ nodes in 1 cluster \(prod-east\), no reboot in 0 clusters/,
    ],
    [
      "50-worker-policy",
      "/etc/containers/policy.json",
      '{"default":[{"type":"reject"}]}\n',
      "Reload crio.service, no drain",
      "Reload crio.service",
      /^Reboots 0 nodes in 0 clusters, no reboot in 1 cluster \(\d+ nodes: prod-east\)/,
    ],
  ];
  for (const [name, path, text, verdict, actions, summary] of cases) {
    await editor.fill(mc(name, path, text));
    await form.getByRole("button", { name: "Preview on the matching clusters" }).click();
    await expect(worker.locator("[data-verdict]")).toHaveText(verdict);
    await expect(worker).toContainText("5 nodes affected");
    await expect(worker.getByRole("cell", { name: path, exact: true })).toBeVisible();
    // The words and the summary are the server's: the same as the verdict and the fleet preview's `summary.text`.
    await expect(
      worker
        .getByRole("row")
        .filter({ has: page.getByRole("cell", { name: path, exact: true }) })
        .getByRole("cell")
        .nth(2),
    ).toHaveText(actions);
    await expect(page.getByRole("status").filter({ hasText: /^Reboots/ })).toHaveText(summary);
    if (verdict === "Reboot") await snap(page, testInfo, "11-preview-reboot");
  }
  await worker.getByText("Before and after: /etc/containers/policy.json").click();
  await expect(worker.getByLabel("/etc/containers/policy.json after")).toContainText('"reject"');
  await snap(page, testInfo, "12-preview-reload");
});

test("the picker takes the fleet view's filters as typed, and the verdict names the cluster that reboots", async ({ page, request }) => {
  await register(request, ["prod-east"]);
  // What the fleet view counts for the same filter: the fleet list API, as the fleet page asks it.
  const fleet = (await (await request.get("/api/v1/clusters?platform=AWS&limit=1")).json()) as { total: number };
  expect(fleet.total).toBeGreaterThan(0);

  await signIn(page, "admin", ADMIN_PASSWORD);
  await page.goto("/preview");
  const form = page.getByRole("form", { name: "Preview a MachineConfig" });
  const clusters = form.getByLabel("Clusters", { exact: true });
  const count = form.getByTestId("selection-count");
  await clusters.fill("platform=AWS");
  await expect(count).toHaveAttribute("data-total", String(fleet.total));
  await expect(count).toContainText(`${fleet.total.toLocaleString("en-US")} ${fleet.total === 1 ? "cluster matches" : "clusters match"}`);
  // A label and a status filter are filters too, not a search for the text "skew=…".
  await clusters.fill("platform=AWS skew=purple");
  await expect(form.getByRole("alert").filter({ hasText: /^The skew must be one of / })).toBeVisible();

  await clusters.fill("platform=AWS name=prod-east");
  await expect(count).toHaveText("1 cluster matches: prod-east");
  await form
    .getByLabel("MachineConfig (YAML or JSON)")
    .fill(mc("50-worker-sysctl", "/etc/sysctl.d/99-net.conf", "net.core.somaxconn = 1024\n"));
  await form.getByRole("button", { name: "Preview on the matching clusters" }).click();
  const summary = page.getByRole("status").filter({ hasText: /^Reboots/ });
  await expect(summary).toHaveText(/^Reboots \d+ nodes in 1 cluster \(prod-east\)/);
  // The answer is brought into view, and the rebooting cluster is a link to its card.
  await expect(summary).toBeInViewport();
  const reboots = page.getByTestId("verdict-clusters").locator('[data-group="reboot"]');
  await expect(reboots.getByRole("link", { name: "prod-east", exact: true })).toHaveAttribute("href", "#preview-prod-east");
  await expect(reboots.getByRole("link", { name: /in the fleet view/ })).toHaveAttribute("href", "/fleet?name=prod-east");
});
