import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { defineConfig, devices } from "@playwright/test";

// Free ports are chosen once, in the main process; workers inherit them through the environment.
const freePort = () =>
  execFileSync(process.execPath, [
    "-e",
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
  ])
    .toString()
    .trim();
process.env.FLEETSKEW_E2E_PORT ??= freePort();
process.env.FLEETSKEW_E2E_EMBEDDED_PORT ??= freePort();
process.env.FLEETSKEW_E2E_ADMIN_PASSWORD ??= "e2e admin password";
process.env.FLEETSKEW_E2E_SIMULATOR_PORT ??= freePort();
process.env.FLEETSKEW_E2E_WORKFLOW_SIMULATOR_PORT ??= freePort();
process.env.FLEETSKEW_E2E_BULK_SIMULATOR_PORT ??= freePort();
process.env.FLEETSKEW_E2E_ROLLOUT_SIMULATOR_PORT ??= freePort();
// The simulated fleets the browser tests register clusters from: one the read-only specs share, and one
// whose clusters the workflows change (each workflow on a cluster of its own), so specs pass in any order.
process.env.FLEETSKEW_E2E_KUBECONFIG ??= path.join(__dirname, "e2e/.artifacts/fleet.kubeconfig");
process.env.FLEETSKEW_E2E_WORKFLOW_KUBECONFIG ??= path.join(__dirname, "e2e/.artifacts/workflows.kubeconfig");
// A third fleet for bulk registration: 50 clusters whose generated names (seed 40) meet no other spec's.
process.env.FLEETSKEW_E2E_BULK_KUBECONFIG ??= path.join(__dirname, "e2e/.artifacts/bulk.kubeconfig");
process.env.FLEETSKEW_E2E_ROLLOUT_KUBECONFIG ??= path.join(__dirname, "e2e/.artifacts/rollout.kubeconfig");

const postgresUrl = `http://127.0.0.1:${process.env.FLEETSKEW_E2E_PORT}`;
const embeddedUrl = `http://127.0.0.1:${process.env.FLEETSKEW_E2E_EMBEDDED_PORT}`;
process.env.FLEETSKEW_E2E_EMBEDDED_URL = embeddedUrl;

const server = (mode: "postgres" | "embedded", port: string | undefined, url: string) => ({
  command: `node node_modules/tsx/dist/cli.mjs e2e/serve.ts ${mode}`,
  url: `${url}/api/health`,
  timeout: 180_000,
  reuseExistingServer: false,
  gracefulShutdown: { signal: "SIGTERM" as const, timeout: 10_000 },
  stdout: "pipe" as const,
  env: {
    PORT: port!,
    HOST: "127.0.0.1",
    FLEETSKEW_ADMIN_PASSWORD: process.env.FLEETSKEW_E2E_ADMIN_PASSWORD!,
    FLEETSKEW_DEMO: mode === "embedded" ? "1" : "0",
    // Every answer the browser tests receive is checked against its endpoint's schema: a drift is a 500.
    FLEETSKEW_CHECK_ANSWERS: "1",
    // The simulated clusters' Routes (the Thanos querier, for the alert checks) are served by their simulators.
    FLEETSKEW_CONNECT_TO: [
      process.env.FLEETSKEW_E2E_SIMULATOR_PORT,
      process.env.FLEETSKEW_E2E_WORKFLOW_SIMULATOR_PORT,
      process.env.FLEETSKEW_E2E_BULK_SIMULATOR_PORT,
      process.env.FLEETSKEW_E2E_ROLLOUT_SIMULATOR_PORT,
    ]
      .map((p) => `*.s${p}.sim.fleetskew.test::127.0.0.1:${p}`)
      .join(","),
  },
});

const simulator = (clusters: number, port: string | undefined, kubeconfig: string | undefined, seed = 1, extra = "") => ({
  command: `node node_modules/tsx/dist/cli.mjs scripts/simulator.ts --clusters ${clusters} --seed ${seed} --port ${port} --kubeconfig ${kubeconfig}${extra}`,
  url: `https://127.0.0.1:${port}/clusters`,
  ignoreHTTPSErrors: true,
  timeout: 60_000,
  reuseExistingServer: false,
  stdout: "pipe" as const,
});

const chromium = {
  ...devices["Desktop Chrome"],
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
    ],
  },
};

const specFiles = () =>
  readdirSync(path.join(__dirname, "e2e"))
    .filter((f) => f.endsWith(".spec.ts"))
    .sort();

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: postgresUrl,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects:
    process.env.FLEETSKEW_E2E_ORDER === "reverse"
      ? // One project per spec file, last file first: a spec that leaned on another's clusters or users would fail here.
        specFiles()
          .reverse()
          .map((file) => ({ name: `chromium ${file}`, testMatch: file, use: chromium }))
      : [{ name: "chromium", use: chromium }],
  webServer: [
    server("postgres", process.env.FLEETSKEW_E2E_PORT, postgresUrl),
    server("embedded", process.env.FLEETSKEW_E2E_EMBEDDED_PORT, embeddedUrl),
    simulator(7, process.env.FLEETSKEW_E2E_SIMULATOR_PORT, process.env.FLEETSKEW_E2E_KUBECONFIG),
    // prod-east and prod-east-422, for the bundle and the acknowledgement workflows; plant-north, whose
    // mirror holds a release-sized bundle that outlasts the MCO's (shortened) prefetch timeout.
    simulator(
      2,
      process.env.FLEETSKEW_E2E_WORKFLOW_SIMULATOR_PORT,
      process.env.FLEETSKEW_E2E_WORKFLOW_KUBECONFIG,
      1,
      " --scenario plant-north",
    ),
    simulator(50, process.env.FLEETSKEW_E2E_BULK_SIMULATOR_PORT, process.env.FLEETSKEW_E2E_BULK_KUBECONFIG, 40),
    // Clusters of the rollout spec alone, upgraded in simulated time: 1,200 times real time makes a 90-minute upgrade 4.5 s.
    simulator(6, process.env.FLEETSKEW_E2E_ROLLOUT_SIMULATOR_PORT, process.env.FLEETSKEW_E2E_ROLLOUT_KUBECONFIG, 3, " --speed 1200"),
  ],
});
