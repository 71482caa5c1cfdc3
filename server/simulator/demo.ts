import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Fleet, type ClusterSpec } from "./cluster";
import { startSimulator, type SimulatorServer } from "./http";
import { Reconciler, scaledClock } from "./reconciler";
import { generateFleet, tokenFor } from "./scenarios/generate";
import { prodEastBlockedAt } from "./scenarios/prodEast";
import { servingCertificate, type ServingCertificate } from "./tls";

export type DemoFleet = { sim: SimulatorServer; specs: ClusterSpec[]; reconciler: Reconciler };

const DEMO_SEED = 1;

/** The simulator's certificate, kept in the data directory so stored demo credentials stay valid. */
async function persistentCertificate(dir: string): Promise<ServingCertificate> {
  const certFile = path.join(dir, "tls.crt");
  const keyFile = path.join(dir, "tls.key");
  try {
    return { cert: await readFile(certFile, "utf8"), key: await readFile(keyFile, "utf8") };
  } catch {
    const tls = await servingCertificate();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(certFile, tls.cert);
    await writeFile(keyFile, tls.key, { mode: 0o600 });
    await chmod(keyFile, 0o600);
    return tls;
  }
}

/**
 * The demo fleet shows what a newcomer should see at least once: beside the generated clusters,
 * prod-east-423, a 4.23 cluster whose CVO writes Upgradeable from risks (boot-image skew and the
 * cloud-credential operator, one bullet each).
 */
function withDemoScenarios(specs: ClusterSpec[]): ClusterSpec[] {
  return [
    ...specs,
    {
      name: "prod-east-423",
      ocpVersion: "4.23.2",
      token: tokenFor("prod-east-423", DEMO_SEED),
      readOnlyToken: tokenFor("prod-east-423-reader", DEMO_SEED),
      objects: () => prodEastBlockedAt("4.23.2", true),
    },
  ];
}

/**
 * Serves a simulated demo fleet on a loopback port, preferring the port of the previous start so
 * that registered demo clusters keep their API URL.
 */
export async function startDemoFleet(options: { dataDir: string; clusters: number }): Promise<DemoFleet> {
  const dir = path.join(options.dataDir, "demo-simulator");
  const tls = await persistentCertificate(dir);
  const portFile = path.join(dir, "port");
  const previous = Number((await readFile(portFile, "utf8").catch(() => "0")).trim()) || 0;
  const specs = withDemoScenarios(generateFleet(options.clusters, DEMO_SEED));
  const fleet = new Fleet();
  for (const spec of specs) fleet.add(spec);
  const sim = await startSimulator(fleet, { port: previous, tls }).catch(() => startSimulator(fleet, { port: 0, tls }));
  await writeFile(portFile, new URL(sim.url).port);
  const reconciler = new Reconciler(fleet, scaledClock(60));
  reconciler.start();
  return { sim, specs, reconciler };
}
