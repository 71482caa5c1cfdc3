/**
 * The first sweep of a fleet whose monitoring Routes this machine cannot resolve, beside the same
 * fleet with its Routes reachable (FLEETSKEW_CONNECT_TO), each into a fresh Postgres database: the real
 * collector against the simulator over HTTPS. A hub that does not resolve its spokes' ingress domains
 * is common; the sweep must then be bound by work, not by waiting on the resolver (docs/benchmarks.md).
 *
 *   BENCH_ROUTES_CLUSTERS=10000     fleet size
 *   BENCH_SWEEP_CONCURRENCY=96      clusters swept at once
 *   BENCH_ROUTES_LAYOUT=resolved    one layout only ("resolved" or "unresolved"; both when unset)
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Collector, defaultCollectorOptions, workerName } from "../server/collector/collector";
import { appConfig } from "../server/config/current";
import { parseConnectTo } from "../server/kube/connectTo";
import { closeDb } from "../server/store/db";
import { migrate } from "../server/store/migrate";
import { createTestDatabase, migrationsDir } from "../server/testing/postgres";
import { fmt, registerFleet, startSimulator } from "./common";

const CLUSTERS = Number(process.env.BENCH_ROUTES_CLUSTERS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_SWEEP_CONCURRENCY ?? 96);
const TARGET_SECONDS = 300;

async function firstSweep(layout: "resolved" | "unresolved", kubeconfig: string, connectTo: string) {
  const db = await createTestDatabase();
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    await registerFleet(kubeconfig);
    const base = defaultCollectorOptions(appConfig(), workerName(`routes-${layout}`));
    const client = { ...base.client, connectTo: layout === "resolved" ? parseConnectTo(connectTo) : [] };
    const collector = new Collector({ ...base, client, concurrency: CONCURRENCY, intervalMs: 6 * 3_600_000 });
    const cpu = process.cpuUsage();
    const started = performance.now();
    const results = await collector.runOnce();
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const last = new Map(results.map((r) => [r.cluster, r]));
    const ok = [...last.values()].filter((r) => r.outcome === "ok").length;
    // What the sweeps that failed said, grouped by the start of their message (timeouts, lost leases).
    const failures = new Map<string, number>();
    for (const r of last.values()) {
      if (r.outcome === "ok") continue;
      const what = `${r.stored}: ${(r.error ?? "").slice(0, 90)}`;
      failures.set(what, (failures.get(what) ?? 0) + 1);
    }
    console.log(
      `${layout.padEnd(10)} first sweep of ${last.size} clusters: ${fmt(seconds)} s, ${fmt(last.size / seconds)} clusters/s, ${ok} ok; ` +
        `collector CPU ${fmt((used.user + used.system) / 1000 / Math.max(1, last.size))} ms per cluster ` +
        `(target: under ${TARGET_SECONDS} s: ${seconds < TARGET_SECONDS ? "PASS" : `MISS by ${fmt(seconds - TARGET_SECONDS)} s`})`,
    );
    for (const [what, n] of [...failures].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  ${n} failed: ${what}`);
    return seconds;
  } finally {
    await closeDb();
    await db.drop();
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-routes-"));
  process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
  process.env.FLEETSKEW_DATA_DIR = path.join(dir, "data");
  delete process.env.FLEETSKEW_DATABASE_MODE;
  delete process.env.FLEETSKEW_CONNECT_TO;
  const sim = await startSimulator(CLUSTERS, dir);
  try {
    console.log(`${CLUSTERS} simulated clusters, collector concurrency ${CONCURRENCY}, on ${os.cpus().length} cores`);
    const only = process.env.BENCH_ROUTES_LAYOUT;
    const unresolved = only === "resolved" ? null : await firstSweep("unresolved", sim.kubeconfig, sim.connectTo);
    const resolved = only === "unresolved" ? null : await firstSweep("resolved", sim.kubeconfig, sim.connectTo);
    if (unresolved && resolved) console.log(`unresolved Routes take ${fmt(unresolved / resolved, 2)}× the time of resolved ones`);
  } finally {
    sim.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
