/**
 * Simulator at fleet scale: 10,000 generated clusters in one process. Measures start-up, the
 * latency of one cluster's full read set (every reader the console uses, through the real client
 * over HTTPS), a concurrent sweep, and the simulator's resident memory. Prints its figures.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ClusterClient } from "../server/kube/client";
import { parseKubeconfig } from "../server/kube/credentials";
import { readClusterObjects } from "../server/kube/readers";
import { cpuSeconds, fmt, percentile, startSimulator } from "./common";

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const SAMPLE = 200;
const SWEEP = Number(process.env.BENCH_SWEEP ?? 3_000);
const CONCURRENCY = 16;
/** 2 GiB for the default 10,000 clusters; issue-sized fleets (100,000) may take 6 GiB. */
const RSS_LIMIT_MIB = CLUSTERS > 10_000 ? 6144 : 2048;

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-bench-"));
  const { child, kubeconfig: kubeconfigText, startupMs, peakRssMiB } = await startSimulator(CLUSTERS, dir);
  let peakRss = peakRssMiB();
  try {
    const kubeconfig = parseKubeconfig(kubeconfigText);
    const names = kubeconfig.contexts.map((c) => c.name);
    // The fleet includes clusters generated with faults (one in a hundred never answers); a short timeout keeps them from stalling the sweep.
    const clients = new Map<string, ClusterClient>();
    const clientFor = (name: string) => {
      let client = clients.get(name);
      if (!client)
        clients.set(name, (client = new ClusterClient(kubeconfig.credentialsFor(name), { timeoutMs: 3_000, retries: 0, retryDelayMs: 0 })));
      return client;
    };
    const readSet = async (name: string) => {
      const t = performance.now();
      const objects = await readClusterObjects(clientFor(name));
      const failed = Object.values(objects).filter((r) => r.status === "error").length;
      return { ms: performance.now() - t, failed };
    };
    // A fixed sample spread over the fleet, skipping the clusters generated with faults.
    const sample = Array.from({ length: SAMPLE }, (_, i) => names[Math.floor((i * names.length) / SAMPLE)]!);
    const cold: number[] = [];
    const warm: number[] = [];
    let faulty = 0;
    for (const name of sample) {
      const first = await readSet(name);
      // Clusters generated with faults (errors, or 1.5 s of added latency) are not what this measures.
      if (first.failed > 0 || first.ms > 1_000) {
        faulty++;
        continue;
      }
      cold.push(first.ms);
      warm.push((await readSet(name)).ms);
    }
    peakRss = Math.max(peakRss, peakRssMiB());

    const queue = names.slice(0, SWEEP);
    const cpuBefore = cpuSeconds(child.pid!);
    const sweepStart = performance.now();
    let done = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let name = queue.shift(); name; name = queue.shift()) {
          await readSet(name);
          done++;
          if (done % 500 === 0) peakRss = Math.max(peakRss, peakRssMiB());
        }
      }),
    );
    const sweepSeconds = (performance.now() - sweepStart) / 1000;
    const cpuPerSweepMs = ((cpuSeconds(child.pid!) - cpuBefore) * 1000) / SWEEP;
    for (const client of clients.values()) client.close();
    peakRss = Math.max(peakRss, peakRssMiB());

    console.log(`simulator: ${CLUSTERS} clusters`);
    console.log(`  start-up (generate specs, TLS, listen):      ${fmt(startupMs, 0)} ms`);
    console.log(
      `  full read set, first read  p50/p95/max:       ${fmt(percentile(cold, 50))} / ${fmt(percentile(cold, 95))} / ${fmt(Math.max(...cold))} ms  (${cold.length} clusters; ${faulty} faulty skipped)`,
    );
    console.log(
      `  full read set, second read p50/p95/max:       ${fmt(percentile(warm, 50))} / ${fmt(percentile(warm, 95))} / ${fmt(Math.max(...warm))} ms`,
    );
    console.log(
      `  sweep of ${SWEEP} clusters at concurrency ${CONCURRENCY}:  ${fmt(sweepSeconds)} s (${fmt(SWEEP / sweepSeconds)} clusters/s)`,
    );
    console.log(
      `  simulator CPU per cluster read in that sweep:  ${fmt(cpuPerSweepMs)} ms (each cluster's objects made again when not kept)`,
    );
    console.log(
      `  simulator peak RSS:                           ${fmt(peakRss)} MiB (limit ${RSS_LIMIT_MIB} MiB) ${peakRss <= RSS_LIMIT_MIB ? "OK" : "OVER"}`,
    );
  } finally {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error("bench failed:", error);
  process.exit(1);
});
