/**
 * `npm run simulator -- [--clusters N] [--seed S] [--port P] [--host H] [--kubeconfig FILE]
 *                       [--import DIR [--name NAME]]... [--scenario NAME]...`
 * Serves a fleet of simulated OpenShift clusters, each under https://HOST:PORT/clusters/<name>.
 *
 * `npm run simulator -- --hub [--clusters N] [--hub-port P] [--proxy-port P] [--registration FILE]
 *                       [--kubeconfig FILE] [--permission-delay MS] [--mce-version V]`
 * Serves a simulated ACM hub managing N clusters, with its cluster-proxy user-server in front of them.
 * With --mce-version below 2.9 the proxy does not impersonate hub users (clusters are reached with
 * a ManagedServiceAccount per cluster instead).
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { Fleet } from "../server/simulator/cluster";
import { startSimulator } from "../server/simulator/http";
import { hubKubeconfig, startHubSimulator } from "../server/simulator/hub/server";
import { clusterFromDumps } from "../server/simulator/importCluster";
import { kubeconfigFor } from "../server/simulator/kubeconfig";
import { Reconciler, scaledClock } from "../server/simulator/reconciler";
import { generateFleet, tokenFor } from "../server/simulator/scenarios/generate";
import { NAMED_SCENARIOS } from "../server/simulator/scenarios/releaseBundle";

const usage = [
  "usage: npm run simulator -- [--clusters N] [--seed S] [--port P] [--host H] [--kubeconfig FILE] [--import DIR [--name NAME]]... [--scenario NAME]...",
  "       npm run simulator -- --hub [--clusters N] [--seed S] [--host H] [--port P] [--hub-port P] [--proxy-port P]",
  "                         [--registration FILE] [--kubeconfig FILE] [--permission-delay MS] [--mce-version V]",
].join("\n");

function fail(message: string): never {
  console.error(`simulator: ${message}`);
  process.exit(2);
}

async function main() {
  const { values, tokens } = parseArgs({
    options: {
      clusters: { type: "string" },
      seed: { type: "string", default: "1" },
      port: { type: "string", default: "18443" },
      host: { type: "string", default: "127.0.0.1" },
      kubeconfig: { type: "string" },
      import: { type: "string", multiple: true },
      name: { type: "string", multiple: true },
      speed: { type: "string", default: "60" },
      scenario: { type: "string", multiple: true },
      hub: { type: "boolean" },
      "hub-port": { type: "string", default: "18444" },
      "proxy-port": { type: "string", default: "19092" },
      registration: { type: "string" },
      "permission-delay": { type: "string", default: "2000" },
      "mce-version": { type: "string", default: "2.9.0" },
      help: { type: "boolean", short: "h" },
    },
    tokens: true,
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    return;
  }
  const seed = Number(values.seed);
  const port = Number(values.port);
  const speed = Number(values.speed);
  if (!(speed > 0)) fail("--speed must be a positive number (simulated seconds per real second)");
  if (!Number.isInteger(seed)) fail("--seed must be a whole number");
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail("--port must be between 0 and 65535");

  if (values.hub) {
    if ((values.import ?? []).length > 0) fail("--import cannot be combined with --hub");
    if ((values.scenario ?? []).length > 0) fail("--scenario cannot be combined with --hub");
    const count = values.clusters !== undefined ? Number(values.clusters) : 20;
    if (!Number.isInteger(count) || count < 1) fail("--clusters must be a whole number of at least 1");
    const hubPort = Number(values["hub-port"]);
    const proxyPort = Number(values["proxy-port"]);
    const delay = Number(values["permission-delay"]);
    for (const [flag, p] of [
      ["--hub-port", hubPort],
      ["--proxy-port", proxyPort],
    ] as const)
      if (!Number.isInteger(p) || p < 0 || p > 65535) fail(`${flag} must be between 0 and 65535`);
    if (!Number.isFinite(delay) || delay < 0) fail("--permission-delay must be a number of milliseconds");
    const mceVersion = values["mce-version"];
    if (!/^\d+\.\d+(\.\d+)?$/.test(mceVersion)) fail("--mce-version must be a version like 2.7.3");
    await serveHub({
      count,
      seed,
      host: values.host,
      port,
      hubPort,
      proxyPort,
      delay,
      speed,
      mceVersion,
      registration: values.registration,
      kubeconfig: values.kubeconfig,
    });
    return;
  }

  // Each --name belongs to the --import before it.
  const imports: { dir: string; name?: string }[] = [];
  for (const t of tokens ?? []) {
    if (t.kind !== "option") continue;
    if (t.name === "import") imports.push({ dir: t.value! });
    if (t.name === "name") {
      const last = imports.at(-1);
      if (!last || last.name) fail("--name must follow the --import it names");
      last.name = t.value!;
    }
  }
  const count = values.clusters !== undefined ? Number(values.clusters) : imports.length > 0 ? 0 : 20;
  if (!Number.isInteger(count) || count < 0) fail("--clusters must be a whole number");

  const fleet = new Fleet();
  for (const spec of generateFleet(count, seed)) fleet.add(spec);
  for (const name of values.scenario ?? []) {
    const scenario = NAMED_SCENARIOS[name];
    if (!scenario) fail(`--scenario ${name}: no such scenario (${Object.keys(NAMED_SCENARIOS).join(", ")})`);
    fleet.add(scenario((n) => tokenFor(n, seed)));
  }
  for (const { dir, name } of imports) {
    const { spec, warnings } = await clusterFromDumps(dir, name, seed).catch((e: Error) => fail(e.message));
    warnings.forEach((w) => console.warn(`simulator: ${w}`));
    try {
      fleet.add(spec);
    } catch (e) {
      fail((e as Error).message);
    }
  }
  if (fleet.list().length === 0) fail("nothing to serve: give --clusters N or --import DIR");

  const sim = await startSimulator(fleet, { port, host: values.host }).catch((e: NodeJS.ErrnoException) =>
    fail(e.code === "EADDRINUSE" ? `port ${port} is already in use; choose another with --port` : e.message),
  );
  const reconciler = new Reconciler(fleet, scaledClock(speed));
  reconciler.start();
  console.log(
    `simulator: serving ${fleet.list().length} cluster${fleet.list().length === 1 ? "" : "s"} on ${sim.url}/clusters/<name> (simulated time runs ${speed}× real time)`,
  );
  console.log(`simulator: the clusters' Routes are served here too; point Fleetskew at them with FLEETSKEW_CONNECT_TO=${sim.connectTo}`);
  if (values.kubeconfig) {
    await mkdir(path.dirname(path.resolve(values.kubeconfig)), { recursive: true });
    await writeFile(values.kubeconfig, kubeconfigFor(fleet.list(), sim.url, sim.ca), { mode: 0o600 });
    console.log(`simulator: kubeconfig with one context per cluster written to ${values.kubeconfig}`);
  }
  const stop = () => {
    reconciler.stop();
    void sim.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

async function serveHub(o: {
  count: number;
  seed: number;
  host: string;
  port: number;
  hubPort: number;
  proxyPort: number;
  delay: number;
  speed: number;
  mceVersion: string;
  registration?: string;
  kubeconfig?: string;
}) {
  const sim = await startHubSimulator({
    clusters: o.count,
    seed: o.seed,
    host: o.host,
    clusterPort: o.port,
    hubPort: o.hubPort,
    proxyPort: o.proxyPort,
    permissionDelayMs: o.delay,
    serviceAccountDelayMs: o.delay,
    mceVersion: o.mceVersion,
    // The ACM agent refreshes ManagedClusterInfo every 5 minutes of the clusters' (simulated) time.
    clusterInfoRefreshMs: 300_000 / o.speed,
  }).catch((e: NodeJS.ErrnoException) =>
    fail(e.code === "EADDRINUSE" ? `${e.message}; choose other ports with --port, --hub-port, --proxy-port` : e.message),
  );
  const reconciler = new Reconciler(sim.fleet, scaledClock(o.speed));
  reconciler.start();
  const registration = sim.registration();
  console.log(`simulator: ACM hub with ${sim.hub.memberNames().length} managed clusters`);
  console.log(`simulator:   hub API            ${registration.hubApiUrl}`);
  console.log(`simulator:   cluster-proxy      ${registration.proxyUrl}/<cluster>/<kube API path>`);
  console.log(`simulator:   clusters (direct)  ${sim.clusters.url}/clusters/<name>`);
  console.log(`simulator:   reader token       ${registration.readerToken}`);
  if (sim.hub.impersonation)
    console.log(`simulator:   proxy token        ${registration.proxyToken} (impersonated as ${registration.proxyImpersonatedUser})`);
  else console.log(`simulator:   MCE ${o.mceVersion}: no impersonation; register the hub for ManagedServiceAccount access`);
  if (o.registration) {
    await mkdir(path.dirname(path.resolve(o.registration)), { recursive: true });
    await writeFile(o.registration, `${JSON.stringify(registration, null, 2)}\n`, { mode: 0o600 });
    console.log(`simulator: hub registration (URLs, CA, tokens) written to ${o.registration}`);
  } else {
    console.log("simulator: give --registration FILE to write the CA and tokens as JSON");
  }
  if (o.kubeconfig) {
    await mkdir(path.dirname(path.resolve(o.kubeconfig)), { recursive: true });
    await writeFile(o.kubeconfig, hubKubeconfig(sim), { mode: 0o600 });
    console.log(`simulator: kubeconfig with contexts hub, hub-admin and proxy-local-cluster written to ${o.kubeconfig}`);
  }
  const stop = () => {
    reconciler.stop();
    void sim.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error) => fail((error as Error).message));
