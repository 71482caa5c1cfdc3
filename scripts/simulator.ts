/**
 * `npm run simulator -- [--clusters N] [--seed S] [--port P] [--host H] [--kubeconfig FILE]
 *                       [--import DIR [--name NAME]]...`
 * Serves a fleet of simulated OpenShift clusters, each under https://HOST:PORT/clusters/<name>.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { Fleet } from "../server/simulator/cluster";
import { startSimulator } from "../server/simulator/http";
import { clusterFromDumps } from "../server/simulator/importCluster";
import { kubeconfigFor } from "../server/simulator/kubeconfig";
import { Reconciler, scaledClock } from "../server/simulator/reconciler";
import { generateFleet } from "../server/simulator/scenarios/generate";

const usage =
  "usage: npm run simulator -- [--clusters N] [--seed S] [--port P] [--host H] [--kubeconfig FILE] [--import DIR [--name NAME]]...";

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

main().catch((error) => fail((error as Error).message));
