/**
 * The fleet of the bundle rollout benchmark, in its own process: `--clusters` copies of the
 * reference cluster (4.19.10, three pools, PinnedImageSet served), the simulated MCO and CVO running
 * `--speed` times faster than real time. Prints "kubeconfig" once it has written its kubeconfig.
 *
 *   node --import tsx bench/bundleSimulator.ts --clusters 1000 --speed 3600 --kubeconfig FILE
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { Fleet } from "../server/simulator/cluster";
import { startSimulator } from "../server/simulator/http";
import { kubeconfigFor } from "../server/simulator/kubeconfig";
import { Reconciler, scaledClock } from "../server/simulator/reconciler";
import { prodEastObjects } from "../server/simulator/scenarios/prodEast";

async function main() {
  const { values } = parseArgs({
    options: { clusters: { type: "string", default: "1000" }, speed: { type: "string", default: "3600" }, kubeconfig: { type: "string" } },
  });
  const fleet = new Fleet();
  for (let i = 0; i < Number(values.clusters); i++) {
    const name = `site-${String(i).padStart(4, "0")}`;
    fleet.add({ name, ocpVersion: "4.19.10", token: `${name}-token`, readOnlyToken: `${name}-reader`, objects: prodEastObjects });
  }
  const sim = await startSimulator(fleet, { port: 0, host: "127.0.0.1" });
  const reconciler = new Reconciler(fleet, scaledClock(Number(values.speed)));
  reconciler.start();
  await writeFile(values.kubeconfig!, kubeconfigFor(fleet.list(), sim.url, sim.ca), { mode: 0o600 });
  console.log("kubeconfig written");
  const stop = () => {
    reconciler.stop();
    void sim.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
