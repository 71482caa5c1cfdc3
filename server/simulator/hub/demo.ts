import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { Reconciler, scaledClock } from "../reconciler";
import { servingCertificate, type ServingCertificate } from "../tls";
import type { HubTokens } from "./hub";
import { startHubSimulator, type HubSimulator } from "./server";

/**
 * A simulated hub for the demo (`npm start` with FLEETSKEW_DEMO_HUB=1). Its certificate, tokens and
 * ports are kept in the data directory, so that a hub registered in an earlier start keeps working:
 * the stored credentials and URLs stay valid.
 */
export type DemoHub = { sim: HubSimulator; reconciler: Reconciler; stop: () => Promise<void> };

const State = z.object({
  cert: z.string(),
  key: z.string(),
  tokens: z.object({ admin: z.string(), reader: z.string(), proxy: z.string() }),
  ports: z.object({ hub: z.number().int(), proxy: z.number().int(), clusters: z.number().int() }),
});
type State = z.infer<typeof State>;

const token = () => `sha256~${randomBytes(32).toString("base64url")}`;

async function loadState(file: string): Promise<State | null> {
  try {
    return State.parse(JSON.parse(await readFile(file, "utf8")));
  } catch {
    return null;
  }
}

async function saveState(dir: string, file: string, state: State): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(state), { mode: 0o600 });
  await chmod(file, 0o600);
}

export async function startDemoHub(options: { dataDir: string; clusters: number; seed?: number; speed?: number }): Promise<DemoHub> {
  const dir = path.join(options.dataDir, "demo-hub");
  const file = path.join(dir, "state.json");
  const previous = await loadState(file);
  const tls: ServingCertificate = previous ?? (await servingCertificate());
  const tokens: HubTokens = previous?.tokens ?? { admin: token(), reader: token(), proxy: token() };
  const start = (ports: State["ports"] | undefined) =>
    startHubSimulator({
      clusters: options.clusters,
      seed: options.seed ?? 1,
      tls,
      tokens,
      hubPort: ports?.hub ?? 0,
      proxyPort: ports?.proxy ?? 0,
      clusterPort: ports?.clusters ?? 0,
      clusterInfoRefreshMs: 300_000 / (options.speed ?? 60),
    });
  // The ports of the previous start if they are free, else any.
  const sim = await start(previous?.ports).catch(() => start(undefined));
  const portOf = (url: string) => Number(new URL(url).port);
  await saveState(dir, file, {
    cert: tls.cert,
    key: tls.key,
    tokens,
    ports: { hub: portOf(sim.hubUrl), proxy: portOf(sim.proxyUrl), clusters: portOf(sim.clusters.url) },
  });
  const reconciler = new Reconciler(sim.fleet, scaledClock(options.speed ?? 60));
  reconciler.start();
  return {
    sim,
    reconciler,
    stop: async () => {
      reconciler.stop();
      await sim.close();
    },
  };
}
