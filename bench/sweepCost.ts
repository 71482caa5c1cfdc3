/**
 * What one steady sweep costs in CPU, collector and simulator apart: the real collector (in this
 * process) sweeps N simulated clusters (a child process) over HTTPS into a fresh Postgres database,
 * a first pass and then steady passes in which nothing changed. Prints CPU milliseconds per
 * cluster-sweep for the collector, the simulator and Postgres, and the requests each sweep sent.
 *
 *   BENCH_COST_CLUSTERS=500   clusters in the fleet
 *   BENCH_COST_PASSES=3       steady passes after the first
 *   BENCH_SWEEP_CONCURRENCY=96  clusters swept at once
 *   BENCH_COST_HUB=1          the clusters are managed by a simulated ACM hub and swept through its
 *                             cluster-proxy (the hub's cap set to the concurrency); the simulator's CPU
 *                             is then the hub's process, proxy and clusters together
 *
 *   BENCH_COST_PROFILE=<file>  the collector's CPU profile of the steady passes, for Chrome's DevTools
 *   BENCH_SIMULATOR_CPU_PROFILE=<dir>  the simulator's CPU profile of the whole run, written when it exits
 *   BENCH_COST_HEAP_SNAPSHOT=<file>  the collector's heap after the passes, for Chrome's DevTools
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { Collector, defaultCollectorOptions, workerName } from "../server/collector/collector";
import { appConfig } from "../server/config/current";
import { parseConnectTo } from "../server/kube/connectTo";
import { closeDb } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { makeAllDue } from "../server/store/sweeps";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import {
  cpuSeconds,
  describePeaks,
  fmt,
  peakMemory,
  percentile,
  postgresCpuSeconds,
  onboardHub,
  registerFleet,
  startHubSimulator,
  startSimulator,
} from "./common";

const CLUSTERS = Number(process.env.BENCH_COST_CLUSTERS ?? 500);
const PASSES = Number(process.env.BENCH_COST_PASSES ?? 3);
const CONCURRENCY = Number(process.env.BENCH_SWEEP_CONCURRENCY ?? 96);
const THROUGH_HUB = process.env.BENCH_COST_HUB === "1";
const TARGET_MS = 5;
/** The largest fleet the console is measured at (bench/fleet100k.ts), swept at the default interval. */
const FLEET_100K = 100_000;
const INTERVAL_S = 300;

/** The simulated fleet, registered: N clusters of their own, or N managed clusters onboarded from a simulated hub. */
async function startFleet(dir: string): Promise<{ child: ChildProcess; connectTo: string }> {
  if (THROUGH_HUB) {
    const hub = await startHubSimulator(CLUSTERS, dir, 1, process.env.BENCH_SIMULATOR_CPU_PROFILE);
    const registered = await onboardHub("bench-hub", hub.registration, CONCURRENCY);
    // As registerFleet does: the collector process would not hold what registering cached.
    await closeDb();
    console.log(`  ${registered} clusters onboarded from the simulated hub`);
    return { child: hub.child, connectTo: "" };
  }
  const sim = await startSimulator(CLUSTERS, dir, process.env.BENCH_SIMULATOR_CPU_PROFILE);
  await registerFleet(sim.kubeconfig);
  return sim;
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-cost-"));
  process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
  process.env.FLEETSKEW_DATA_DIR = path.join(dir, "data");
  delete process.env.FLEETSKEW_DATABASE_MODE;
  const db = await createTestDatabase();
  let sim: { child: ChildProcess; connectTo: string } | undefined;
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    sim = await startFleet(dir);
    const base = defaultCollectorOptions(appConfig(), workerName("bench"));
    const client = { ...base.client, connectTo: parseConnectTo(sim.connectTo) };
    const collector = new Collector({ ...base, client, concurrency: CONCURRENCY, intervalMs: 6 * 3_600_000 });
    console.log(
      `sweep cost: ${CLUSTERS} simulated clusters${THROUGH_HUB ? " through a hub's cluster-proxy" : ""}, concurrency ${CONCURRENCY}`,
    );
    const rows: string[] = [];
    const steady: { collector: number; simulator: number }[] = [];
    const profiler = process.env.BENCH_COST_PROFILE ? new Session() : null;
    for (let pass = 0; pass <= PASSES; pass++) {
      if (pass > 0) await makeAllDue();
      if (pass === 1 && profiler) {
        profiler.connect();
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.start");
      }
      const memory = peakMemory();
      const before = { collector: cpuSeconds("self"), simulator: cpuSeconds(sim.child.pid!), postgres: postgresCpuSeconds() };
      const started = performance.now();
      const results = await collector.runOnce();
      const seconds = (performance.now() - started) / 1000;
      const peak = memory.stop();
      const per = (now: number, then: number) => ((now - then) * 1000) / Math.max(1, results.length);
      const cost = {
        collector: per(cpuSeconds("self"), before.collector),
        simulator: per(cpuSeconds(sim.child.pid!), before.simulator),
        postgres: per(postgresCpuSeconds(), before.postgres),
      };
      if (pass > 0) steady.push(cost);
      const ok = results.filter((r) => r.outcome === "ok");
      const unchanged = ok.filter((r) => r.stored === "unchanged").length;
      const p50 = percentile(
        results.map((r) => r.durationMs),
        50,
      );
      // Normalizing and evaluating what was read: synchronous work, so its wall time is its CPU time.
      const digestMs = ok.reduce((sum, r) => sum + (r.phases?.digestMs ?? 0), 0) / Math.max(1, ok.length);
      rows.push(
        `  ${pass === 0 ? "first " : `steady ${pass}`}  ${fmt(seconds)} s, ${results.length} sweeps (${ok.length} ok, ${unchanged} unchanged), p50 ${fmt(p50, 0)} ms, digest ${fmt(digestMs, 2)} ms a sweep; CPU per cluster-sweep: collector ${fmt(cost.collector)} ms, simulator ${fmt(cost.simulator)} ms, Postgres ${fmt(cost.postgres)} ms; collector peaks: ${describePeaks(peak)}`,
      );
      console.log(rows.at(-1));
    }
    // What the collector holds between sweeps: its clients, and the watched copies of every cluster's kinds.
    (globalThis as { gc?: () => void }).gc?.();
    const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
    const simulatorRss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${sim.child.pid}/status`, "utf8"))?.[1];
    if (process.env.BENCH_COST_HEAP_SNAPSHOT) {
      writeHeapSnapshot(process.env.BENCH_COST_HEAP_SNAPSHOT);
      console.log(`  the collector's heap after the passes: ${process.env.BENCH_COST_HEAP_SNAPSHOT}`);
    }
    // Connections held between sweeps (the collector's open descriptors, most of them sockets).
    const descriptors = readdirSync("/proc/self/fd").length;
    console.log(
      `  after the passes: collector heap ${fmt(heapMiB, 0)} MiB, ${descriptors} open descriptors${(globalThis as { gc?: unknown }).gc ? "" : " (no --expose-gc: not collected first)"}, simulator RSS ${fmt(Number(simulatorRss ?? 0) / 1024, 0)} MiB`,
    );
    if (profiler) {
      const { profile } = await profiler.post("Profiler.stop");
      writeFileSync(process.env.BENCH_COST_PROFILE!, JSON.stringify(profile));
      console.log(`  the collector's profile of the steady passes: ${process.env.BENCH_COST_PROFILE}`);
    }
    const mean = (key: "collector" | "simulator") => steady.reduce((sum, s) => sum + s[key], 0) / Math.max(1, steady.length);
    const verdict = (ms: number) => (ms <= TARGET_MS ? `met (≤ ${TARGET_MS} ms)` : `not met (target ≤ ${TARGET_MS} ms)`);
    console.log(
      `  steady collector CPU per cluster-sweep (mean of the steady passes): ${fmt(mean("collector"))} ms: ${verdict(mean("collector"))}`,
    );
    console.log(
      `  steady simulator CPU per cluster-sweep (mean of the steady passes): ${fmt(mean("simulator"))} ms: ${verdict(mean("simulator"))}`,
    );
    // What this machine cannot sweep at that size, said as cores of it: arithmetic on the figure above, not a measurement.
    const perSecond = FLEET_100K / INTERVAL_S;
    console.log(
      `  extrapolated, not measured: ${FLEET_100K.toLocaleString("en")} clusters every ${INTERVAL_S / 60} minutes (${fmt(perSecond, 0)} steady sweeps a second) would take ${fmt((perSecond * mean("collector")) / 1000)} of this machine's cores of collectors${THROUGH_HUB ? " (every cluster behind a hub)" : ""}`,
    );
  } finally {
    sim?.child.kill("SIGTERM");
    await closeDb();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error("bench failed:", error);
  process.exit(1);
});
