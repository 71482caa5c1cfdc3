import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { parse, stringify } from "yaml";
import { Fleet } from "../server/simulator/cluster";
import { startSimulator, type SimulatorServer } from "../server/simulator/http";
import { kubeconfigFor } from "../server/simulator/kubeconfig";
import { Reconciler, scaledClock } from "../server/simulator/reconciler";
import { rawRequest, testFleetSpecs } from "../server/simulator/testing";
import { freePort } from "./console";
import { hydrated, snap } from "./helpers";
import { call, createDeployment, type Deployment } from "./processes";

/**
 * The whole alert chain, with real parts: the console (built, on Postgres) sweeping a simulated
 * cluster every second; a real Prometheus (Debian's 2.42) scraping its /metrics with the bearer token
 * every second and evaluating deploy/monitoring/fleet-alerts.yaml every second; a real Alertmanager
 * (Debian's 0.25) routing to a webhook receiver in this test. The rules are a test copy with every
 * `for:` set to 1s: the real durations are promtool's to test (deploy/monitoring/rules.int.test.ts).
 *
 * prod-east-422 (4.22.3, installed 4.12.7) starts acknowledged (Manual, RHCOS 9.6.20250701-0): fine.
 * Then its recorded oldest boot image drifts back to 4.12.7 (a MachineSet from the install-time AMI is
 * recorded), the simulated MCO blocks minor updates, and FleetskewNextMinorBlockedByBootImageSkew
 * must reach the webhook with its labels and runbook; acknowledged again, it must resolve.
 */
const TOKEN = "chain-test-metrics-token-0123456789";
const CLUSTER = "prod-east-422";

type Received = { status: string; alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[] };

test.describe.configure({ mode: "serial" });
test.setTimeout(180_000);

let fleet: Fleet;
let sim: SimulatorServer;
let reconciler: Reconciler;
let deployment: Deployment;
let webhook: http.Server;
const received: Received[] = [];
const children: { name: string; child: ChildProcess; output: () => string }[] = [];
const work = mkdtempSync(path.join(os.tmpdir(), "fleetskew-alert-chain-"));

function run(name: string, command: string, args: string[]) {
  const child = spawn(command, args, { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  child.on("error", (error) => (output += `\n${command}: ${error.message} (apt-get install -y prometheus prometheus-alertmanager)`));
  children.push({ name, child, output: () => output.slice(-4000) });
}
const logs = () => children.map((c) => `--- ${c.name}\n${c.output()}`).join("\n");

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs / 1000} s\n${logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Writes MachineConfiguration spec.bootImageSkewEnforcement as an admin would (a merge patch through the cluster's API); the simulated MCO reacts. */
async function acknowledge(manual: { mode: "RHCOSVersion"; rhcosVersion: string } | { mode: "OCPVersion"; ocpVersion: string }) {
  const cluster = fleet.get(CLUSTER)!;
  const patched = await rawRequest(sim, `/clusters/${CLUSTER}/apis/operator.openshift.io/v1/machineconfigurations/cluster`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${cluster.spec.token}`, "content-type": "application/merge-patch+json" },
    body: JSON.stringify({
      spec: { bootImageSkewEnforcement: { mode: "Manual", manual: { ocpVersion: null, rhcosVersion: null, ...manual } } },
    }),
  });
  expect(patched.status, patched.body).toBe(200);
  reconciler.reconcile(cluster);
}

const notifications = (status: "firing" | "resolved") =>
  received.flatMap((r) => r.alerts).filter((a) => a.status === status && a.labels.alertname === "FleetskewNextMinorBlockedByBootImageSkew");

test.beforeAll(async () => {
  fleet = new Fleet();
  fleet.add(testFleetSpecs().find((s) => s.name === CLUSTER)!);
  sim = await startSimulator(fleet);
  reconciler = new Reconciler(fleet, scaledClock(1));
  reconciler.start();
  await acknowledge({ mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" });

  webhook = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push(JSON.parse(body) as Received);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, "127.0.0.1", resolve));
  const hookPort = (webhook.address() as AddressInfo).port;

  const [amPort, promPort, clusterPort] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(
    path.join(work, "alertmanager.yml"),
    stringify({
      route: { receiver: "test", group_by: ["alertname", "cluster"], group_wait: "1s", group_interval: "1s", repeat_interval: "1h" },
      receivers: [{ name: "test", webhook_configs: [{ url: `http://127.0.0.1:${hookPort}/`, send_resolved: true }] }],
    }),
  );
  run("alertmanager", "prometheus-alertmanager", [
    "--config.file=alertmanager.yml",
    `--storage.path=${path.join(work, "am")}`,
    `--web.listen-address=127.0.0.1:${amPort}`,
    `--cluster.listen-address=127.0.0.1:${clusterPort}`,
  ]);

  deployment = await createDeployment({
    FLEETSKEW_SWEEP_INTERVAL_SECONDS: "1",
    FLEETSKEW_METRICS_TOKEN: TOKEN,
    FLEETSKEW_ALERTMANAGER_URL: `http://127.0.0.1:${amPort}`,
  });
  const web = await deployment.startWeb("alerts-web");
  process.env.FLEETSKEW_CHAIN_WEB_URL = web.url;

  // The rules as a plain Prometheus loads them: spec.groups as they are, with `for:` shortened.
  const rule = parse(readFileSync(path.join(__dirname, "../deploy/monitoring/fleet-alerts.yaml"), "utf8")) as {
    spec: { groups: { rules: { for?: string }[] }[] };
  };
  for (const g of rule.spec.groups) for (const r of g.rules) if (r.for) r.for = "1s";
  writeFileSync(path.join(work, "fleet.rules.yml"), stringify({ groups: rule.spec.groups }));
  writeFileSync(path.join(work, "token"), TOKEN);
  writeFileSync(
    path.join(work, "prometheus.yml"),
    stringify({
      global: { scrape_interval: "1s", evaluation_interval: "1s" },
      rule_files: ["fleet.rules.yml"],
      alerting: { alertmanagers: [{ static_configs: [{ targets: [`127.0.0.1:${amPort}`] }] }] },
      scrape_configs: [
        {
          job_name: "fleetskew",
          metrics_path: "/metrics",
          authorization: { type: "Bearer", credentials_file: path.join(work, "token") },
          static_configs: [{ targets: [new URL(web.url).host] }],
        },
      ],
    }),
  );
  run("prometheus", "prometheus", [
    `--config.file=${path.join(work, "prometheus.yml")}`,
    `--storage.tsdb.path=${path.join(work, "tsdb")}`,
    `--web.listen-address=127.0.0.1:${promPort}`,
  ]);
  process.env.FLEETSKEW_CHAIN_PROMETHEUS_URL = `http://127.0.0.1:${promPort}`;
  await until(
    "Prometheus and Alertmanager ready",
    async () => {
      const ok = async (url: string) => (await fetch(url).catch(() => null))?.ok;
      return (await ok(`http://127.0.0.1:${promPort}/-/ready`)) && (await ok(`http://127.0.0.1:${amPort}/-/ready`));
    },
    30_000,
  );
});

test.afterAll(async () => {
  reconciler?.stop();
  for (const c of children) c.child.kill("SIGTERM");
  await deployment?.stop();
  await sim?.close();
  webhook?.close();
  rmSync(work, { recursive: true, force: true });
});

test("a cluster drifting into a skew block raises the alert through Prometheus and Alertmanager; fixed, it resolves", async ({
  page,
}, testInfo) => {
  const web = process.env.FLEETSKEW_CHAIN_WEB_URL!;
  const prometheus = process.env.FLEETSKEW_CHAIN_PROMETHEUS_URL!;
  const signIn = await call(`${web}/api/v1/session`, { json: { username: "admin", password: deployment.adminPassword } });
  expect(signIn.status).toBe(200);
  const cookie = signIn.cookie!;
  const kubeconfig = kubeconfigFor(fleet.list(), sim.url, sim.ca);
  const created = await call(`${web}/api/v1/clusters`, {
    cookie,
    json: { name: CLUSTER, source: { type: "kubeconfig", kubeconfig, context: CLUSTER } },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);

  // Prometheus scrapes with the token (a target that is up), and sees the cluster fine: no skew series.
  await until(
    "Prometheus scraping the console",
    async () => {
      const targets = (await (await fetch(`${prometheus}/api/v1/targets`)).json()) as { data: { activeTargets: { health: string }[] } };
      return targets.data.activeTargets[0]?.health === "up";
    },
    30_000,
  );
  await until(
    "the first sweep",
    async () => (await call(`${web}/api/v1/clusters/${CLUSTER}`, { cookie })).body?.cluster?.lastSeenAt,
    30_000,
  );
  expect((await call(`${web}/metrics`)).status).toBe(401);
  expect(notifications("firing")).toEqual([]);

  // Drift: the oldest boot image recorded goes back to the install version; the MCO blocks minor updates.
  await acknowledge({ mode: "OCPVersion", ocpVersion: "4.12.7" });
  const [firing] = await until("the alert at the webhook", () => notifications("firing").length > 0 && notifications("firing"), 60_000);
  expect(firing!.labels).toMatchObject({
    alertname: "FleetskewNextMinorBlockedByBootImageSkew",
    severity: "warning",
    cluster: CLUSTER,
    job: "fleetskew",
    target_kind: "next-minor",
    target: "4.23",
    stage: "now",
  });
  expect(firing!.labels.instance).toBeUndefined();
  expect(firing!.annotations.runbook_url).toMatch(/\/docs\/runbooks\/FleetskewNextMinorBlockedByBootImageSkew\.md$/);
  expect(firing!.annotations.summary).toBe(`${CLUSTER}: boot-image skew blocks the next minor update (4.23)`);
  expect(firing!.annotations.description).toContain("Upgradeable=False (ClusterBootImageSkewError)");

  // The console lists the same alert from its own database, and the Alertmanager's beside it.
  const list = await until(
    "the Alertmanager's alert in the console's list",
    async () => {
      const answer = (await call(`${web}/api/v1/alerts`, { cookie })).body;
      return answer?.alertmanager?.status === "ok" && answer.alertmanager.alerts.length > 0 && answer;
    },
    30_000,
  );
  expect(list.alerts.map((a: { alert: string; cluster: string }) => `${a.alert} ${a.cluster}`)).toContain(
    `FleetskewNextMinorBlockedByBootImageSkew ${CLUSTER}`,
  );
  await page.goto(`${web}/login?next=/alerts`);
  await hydrated(page);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(deployment.adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/alerts$/, { timeout: 30_000 });
  await expect(page.locator(`[data-alert="FleetskewNextMinorBlockedByBootImageSkew"][data-cluster="${CLUSTER}"]`)).toBeVisible();
  await expect(page.locator('[data-am-alert="FleetskewNextMinorBlockedByBootImageSkew"]')).toBeVisible();
  await snap(page, testInfo, "alerts-with-alertmanager");

  // Fixed: acknowledged with the boot image the MachineSets now use; the alert resolves.
  await acknowledge({ mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" });
  const [resolved] = await until(
    "the resolved notification",
    () => notifications("resolved").length > 0 && notifications("resolved"),
    60_000,
  );
  expect(resolved!.labels).toMatchObject({ alertname: "FleetskewNextMinorBlockedByBootImageSkew", cluster: CLUSTER });
});
