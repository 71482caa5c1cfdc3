/**
 * The fleet at scale, end to end on one machine: the real collector sweeping N simulated clusters
 * (a child process) over HTTPS into a fresh Postgres database, the fleet list route, a year of
 * history per cluster, and a sequential kubectl loop for comparison. Prints its figures and the
 * targets next to them; a missed target is reported, not fatal. See docs/benchmarks.md.
 *
 *   BENCH_FLEET_SIZES=1000,10000   fleet sizes, run in this order
 *   BENCH_SWEEP_CONCURRENCY=96     clusters swept at once by the collector
 */
import { FLEET_WIDE } from "../server/domain/grants";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { GET as listClustersRoute } from "../app/api/v1/clusters/route";
import { parseConnectTo } from "../server/kube/connectTo";
import { Collector, defaultCollectorOptions, workerName, type SweepResult } from "../server/collector/collector";
import { clusterTimeline, invalidateFleetList, listFleet } from "../server/fleet/fleet";
import { appConfig } from "../server/config/current";
import { CLIENT_IP_HEADER } from "../server/http/request";
import type { ClusterCredentials } from "../server/kube/credentials";
import { closeDb } from "../server/store/db";
import { appendClusterFacts, factsInWindow, historyBytes, historyRowCount } from "../server/store/history";
import { yearOfHistory } from "./yearOfHistory";
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
  procStatus,
  registerFleet,
  startSimulator,
  type MemoryPeaks,
  type Simulator,
} from "./common";
import { signInAsAdmin } from "./signIn";

const SIZES = (process.env.BENCH_FLEET_SIZES ?? "1000,10000").split(",").map((s) => Number(s.trim()));
const CONCURRENCY = Number(process.env.BENCH_SWEEP_CONCURRENCY ?? 96);
const HISTORY_CLUSTERS = 100;
const HISTORY_DAYS = 365;
const LIST_WARMUP = 5;
const LIST_REQUESTS = 50;
const LIST_PACING_MS = 250;
const TIMELINE_CALLS = 200;
const KUBECTL_SAMPLE = 20;

const TARGET = {
  sweepPerSecond: 35, // at 10,000 clusters: a 5-minute interval needs 33.3/s
  kubectlRatio: 50,
  listP95Ms: 200,
  timelineP95Ms: 50,
  bytesPerClusterDay: 2048,
  collectorRssMiB: 1024,
};

const DAY = 86_400_000;
const ORIGIN = "http://127.0.0.1:3000";
const ADMIN_PASSWORD = randomBytes(18).toString("base64url");

const log = (line: string) => console.log(line);
const progress = (line: string) => console.log(`  .. ${line}`);

/** "PASS" or "MISS by …" for a figure against its target. */
function verdict(value: number, target: number, better: "higher" | "lower", unit = ""): string {
  if (!Number.isFinite(value)) return "n/a";
  const ok = better === "higher" ? value >= target : value <= target;
  const sign = better === "higher" ? "≥" : "≤";
  if (ok) return `PASS (target ${sign} ${target}${unit})`;
  const off = better === "higher" ? (target - value) / target : (value - target) / target;
  return `MISS by ${(off * 100).toFixed(0)}% (target ${sign} ${target}${unit})`;
}

/** Peak RSS of this process from now on: clear_refs 5 resets VmHWM (Linux ≥ 4.0). */
function resetPeakRss(): void {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    /* the peak then covers the whole process lifetime */
  }
}

type Sweep = {
  seconds: number;
  clusters: number;
  sweeps: number;
  ok: number;
  failed: number;
  written: number;
  rowsAdded: number;
  perCluster: { p50: number; p95: number };
  /** Sweeps per second while the pipeline is full (see pipelineRate). */
  rate: number;
  /** p50 of each phase of a successful sweep, ms. */
  phases: { read: number; digest: number; store: number };
  /** CPU seconds spent during the sweep by the collector (this process), the simulator and Postgres. */
  cpu: { collector: number; simulator: number; postgres: number };
  /** The collector's (this process's) memory peaks during the sweep. */
  peaks: MemoryPeaks;
  results: SweepResult[];
};

/**
 * Sweeps completed per second while the pipeline is full: between the 5th and the 95th percentile
 * of completion times. A pass's wall time also holds its tail, the few clusters that time out;
 * in the running collector those overlap with the next clusters' sweeps.
 */
function pipelineRate(finishedAt: number[]): number {
  const sorted = [...finishedAt].sort((a, b) => a - b);
  if (sorted.length < 20) return NaN;
  const lo = sorted[Math.floor(sorted.length * 0.05)]!;
  const hi = sorted[Math.floor(sorted.length * 0.95)]!;
  return (Math.floor(sorted.length * 0.95) - Math.floor(sorted.length * 0.05)) / ((hi - lo) / 1000);
}

async function sweep(collector: Collector, onTick: () => void, simulatorPid: number): Promise<Sweep> {
  const rowsBefore = await historyRowCount();
  const timer = setInterval(onTick, 1_000);
  const memory = peakMemory();
  const cpuBefore = { collector: cpuSeconds("self"), simulator: cpuSeconds(simulatorPid), postgres: postgresCpuSeconds() };
  const started = performance.now();
  const finishedAt: number[] = [];
  collector.options.onSweep = () => finishedAt.push(performance.now());
  const results = await collector.runOnce();
  const seconds = (performance.now() - started) / 1000;
  const cpu = {
    collector: cpuSeconds("self") - cpuBefore.collector,
    simulator: cpuSeconds(simulatorPid) - cpuBefore.simulator,
    postgres: postgresCpuSeconds() - cpuBefore.postgres,
  };
  clearInterval(timer);
  const peaks = memory.stop();
  onTick();
  // A failing cluster is retried after its backoff, possibly within the same pass: count clusters once, by their last outcome.
  const last = new Map(results.map((r) => [r.cluster, r]));
  const durations = results.map((r) => r.durationMs);
  return {
    seconds,
    peaks,
    clusters: last.size,
    sweeps: results.length,
    ok: [...last.values()].filter((r) => r.outcome === "ok").length,
    failed: [...last.values()].filter((r) => r.outcome === "failed").length,
    written: results.filter((r) => r.outcome === "ok" && r.stored === "written").length,
    rowsAdded: (await historyRowCount()) - rowsBefore,
    perCluster: { p50: percentile(durations, 50), p95: percentile(durations, 95) },
    rate: pipelineRate(finishedAt),
    phases: {
      read: percentile(
        results.flatMap((r) => (r.phases ? [r.phases.readMs] : [])),
        50,
      ),
      digest: percentile(
        results.flatMap((r) => (r.phases ? [r.phases.digestMs] : [])),
        50,
      ),
      store: percentile(
        results.flatMap((r) => (r.phases ? [r.phases.storeMs] : [])),
        50,
      ),
    },
    cpu,
    results,
  };
}

/** GET /api/v1/clusters through the real route handler, timed until the body is parsed. */
async function measureFleetList(cookie: string, expected: number) {
  const once = async () => {
    const started = performance.now();
    const response = await listClustersRoute(
      new Request(`${ORIGIN}/api/v1/clusters`, { headers: { host: "127.0.0.1:3000", cookie, [CLIENT_IP_HEADER]: "127.0.0.1" } }),
    );
    const text = await response.text();
    const body = JSON.parse(text) as { clusters: unknown[]; total: number };
    const ms = performance.now() - started;
    // The list answers one window of the fleet (its first rows) and the count of all that match.
    if (response.status !== 200 || body.total !== expected || body.clusters.length === 0)
      throw new Error(
        `GET /api/v1/clusters answered ${response.status} with ${body.clusters?.length} of ${body.total} clusters, expected ${expected} in all`,
      );
    return { ms, bytes: Buffer.byteLength(text) };
  };
  for (let i = 0; i < LIST_WARMUP; i++) await once();
  // Spread over several times the list's freshness (3 s), so background refreshes overlap requests.
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < LIST_REQUESTS; i++) {
    const r = await once();
    times.push(r.ms);
    bytes = r.bytes;
    await new Promise((resolve) => setTimeout(resolve, LIST_PACING_MS));
  }
  // What one refresh costs: reading every row from Postgres again.
  const refreshes: number[] = [];
  for (let i = 0; i < 10; i++) {
    invalidateFleetList();
    const started = performance.now();
    await listFleet();
    refreshes.push(performance.now() - started);
  }
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    bytes,
    refresh: { p50: percentile(refreshes, 50), p95: percentile(refreshes, 95) },
  };
}

/** The objects the collector reads (server/kube/readers.ts READ_SET), one kubectl call each. */
const KUBECTL_READS: string[][] = [
  ["get", "clusterversions.config.openshift.io", "version"],
  ["get", "clusteroperators.config.openshift.io", "machine-config"],
  ["get", "infrastructures.config.openshift.io", "cluster"],
  ["get", "machineconfigurations.operator.openshift.io", "cluster"],
  ["get", "machinesets.machine.openshift.io", "-n", "openshift-machine-api"],
  ["get", "configmap", "coreos-bootimages", "-n", "openshift-machine-config-operator"],
  ["get", "configmap", "admin-gates", "-n", "openshift-config-managed"],
  ["get", "configmap", "admin-acks", "-n", "openshift-config"],
  ["get", "machineconfigpools.machineconfiguration.openshift.io"],
  ["get", "machineconfignodes.machineconfiguration.openshift.io"],
  ["get", "pinnedimagesets.machineconfiguration.openshift.io"],
  ["get", "nodes"],
  ["get", "machineosconfigs.machineconfiguration.openshift.io"],
  ["get", "machineosbuilds.machineconfiguration.openshift.io"],
  ["get", "provisionings.metal3.io", "provisioning-configuration"],
];

/** A sequential kubectl loop over the sample, one kubeconfig per cluster and a fresh discovery cache. */
function kubectlLoop(sample: string[], credentials: Map<string, ClusterCredentials>, dir: string) {
  const cacheDir = path.join(dir, "kube-cache");
  mkdirSync(cacheDir, { recursive: true });
  let invocations = 0;
  let failures = 0;
  const started = performance.now();
  for (const name of sample) {
    const c = credentials.get(name)!;
    const file = path.join(dir, `${name}.kubeconfig`);
    writeFileSync(
      file,
      stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [
          { name, cluster: { server: c.server, "certificate-authority-data": Buffer.from(c.certificateAuthority!).toString("base64") } },
        ],
        users: [{ name, user: { token: c.token } }],
        contexts: [{ name, context: { cluster: name, user: name } }],
        "current-context": name,
      }),
      { mode: 0o600 },
    );
    for (const args of KUBECTL_READS) {
      const r = spawnSync("kubectl", [...args, "-o", "json", "--kubeconfig", file, "--cache-dir", cacheDir, "--request-timeout", "10s"], {
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      invocations++;
      // "not found" / "doesn't have a resource type" is an answer (the collector records it as not available), not a failure.
      if (r.status !== 0 && !/NotFound|not found|doesn't have a resource type/.test(r.stderr)) failures++;
    }
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, clusters: sample.length, perSecond: sample.length / seconds, invocations, failures };
}

/** Spread over the fleet, skipping clusters whose sweep failed or took long (the generated faults). */
function healthySample(results: SweepResult[], count: number, names: string[]): string[] {
  // The generated faults (added latency, flapping) show as the slowest tenth of the sweep.
  const ok = results.filter((r) => r.outcome === "ok");
  const p90 = percentile(
    ok.map((r) => r.durationMs),
    90,
  );
  const healthy = new Set(ok.filter((r) => r.durationMs <= p90).map((r) => r.cluster));
  const candidates = names.filter((n) => healthy.has(n));
  return Array.from({ length: Math.min(count, candidates.length) }, (_, i) => candidates[Math.floor((i * candidates.length) / count)]!);
}

type SizeFigures = {
  size: number;
  first: Sweep;
  second: Sweep;
  collectorRssMiB: number;
  collectorLiveMiB: number;
  simulatorRssMiB: number;
  list: { p50: number; p95: number; bytes: number; refresh: { p50: number; p95: number } };
  timeline: { p50: number; p95: number; points: number };
  history: { rows: number; bytes: number; perClusterDay: number; perClusterDayRows: number };
  firstSweepBytesPerCluster: number;
  kubectl: { seconds: number; clusters: number; perSecond: number; invocations: number; failures: number } | null;
};

async function runSize(size: number, dir: string): Promise<SizeFigures> {
  log(`\nfleet of ${size} simulated clusters (collector concurrency ${CONCURRENCY})`);
  const db = await createTestDatabase();
  let sim: Simulator | undefined;
  try {
    await migrate(db.url, { dir: migrationsDir });
    process.env.DATABASE_URL = db.url;
    sim = await startSimulator(size, dir);
    progress(`simulator up in ${fmt(sim.startupMs / 1000)} s`);
    const t = performance.now();
    const { names, credentials } = await registerFleet(sim.kubeconfig);
    progress(`${names.length} clusters registered in ${fmt((performance.now() - t) / 1000)} s`);

    const base = defaultCollectorOptions(appConfig(), workerName("bench"));
    // One pass must not run into the next interval (at 10,000 clusters it can take longer than 5 minutes).
    // The clusters' Routes (alerts) are the simulator's, as FLEETSKEW_CONNECT_TO would say.
    const client = { ...base.client, connectTo: parseConnectTo(sim.connectTo) };
    const collector = new Collector({ ...base, client, concurrency: CONCURRENCY, intervalMs: 6 * 3_600_000 });
    const tick = () => sim!.peakRssMiB();

    resetPeakRss();
    const bytesBefore = await historyBytes();
    const first = await sweep(collector, tick, sim.child.pid!);
    const firstSweepBytesPerCluster = ((await historyBytes()) - bytesBefore) / Math.max(1, first.ok);
    progress(`first sweep: ${fmt(first.seconds)} s, ${first.ok} ok, ${first.failed} failed, ${first.rowsAdded} history rows`);
    await makeAllDue();
    const second = await sweep(collector, tick, sim.child.pid!);
    progress(`second sweep: ${fmt(second.seconds)} s, ${second.ok} ok, ${second.failed} failed, ${second.rowsAdded} history rows`);
    const collectorRssMiB = procStatus("self", "VmHWM");
    const simulatorRssMiB = sim.peakRssMiB();
    // What the collector keeps between sweeps (clients, catalog, caches): the heap after a full collection.
    (globalThis as { gc?: () => void }).gc?.();
    const collectorLiveMiB = process.memoryUsage().heapUsed / 2 ** 20;

    const cookie = await signInAsAdmin(ADMIN_PASSWORD);
    const list = await measureFleetList(cookie, size);
    progress(`fleet list: p50 ${fmt(list.p50)} ms, p95 ${fmt(list.p95)} ms`);

    // A year of history for a sample of clusters, ending when their real sweeps began.
    const fleet = await listFleet();
    const ok = new Set(second.results.filter((r) => r.outcome === "ok").map((r) => r.cluster));
    const swept = fleet.filter((c) => ok.has(c.name));
    const sample = Array.from(
      { length: Math.min(HISTORY_CLUSTERS, swept.length) },
      (_, i) => swept[Math.floor((i * swept.length) / HISTORY_CLUSTERS)]!,
    );
    const to = new Date(Date.now() - 60_000);
    const from = new Date(to.getTime() - HISTORY_DAYS * DAY);
    const sizeBefore = await historyBytes();
    let seeded = 0;
    for (const [i, c] of sample.entries()) {
      const now = await factsInWindow(c.id, ["bootImage", "pool"], new Date(), new Date());
      const current = {
        machineSets: [...new Set(now.filter((f) => f.fact === "bootImage" && f.value).map((f) => f.key))],
        pools: now
          .filter((f) => f.fact === "pool" && f.value)
          .map((f) => ({ name: f.key, machines: Number((f.value as { machines?: number }).machines ?? 3) })),
      };
      seeded += await appendClusterFacts(yearOfHistory(c.id, i, current, from, to));
    }
    const history = {
      rows: seeded,
      bytes: (await historyBytes()) - sizeBefore,
      perClusterDay: ((await historyBytes()) - sizeBefore) / (sample.length * HISTORY_DAYS),
      perClusterDayRows: seeded / (sample.length * HISTORY_DAYS),
    };
    progress(`history: ${seeded} rows for ${sample.length} clusters × ${HISTORY_DAYS} days`);

    const window = { from: new Date(Date.now() - HISTORY_DAYS * DAY), to: new Date() };
    for (const c of sample.slice(0, 10)) await clusterTimeline(c.name, FLEET_WIDE, window);
    const times: number[] = [];
    let points = 0;
    for (let i = 0; i < TIMELINE_CALLS; i++) {
      const c = sample[i % sample.length]!;
      const started = performance.now();
      const timeline = await clusterTimeline(c.name, FLEET_WIDE, window);
      times.push(performance.now() - started);
      points += timeline.version.length + timeline.oldestBootImage.length + timeline.skew.length + timeline.events.length;
    }
    const timeline = { p50: percentile(times, 50), p95: percentile(times, 95), points: points / TIMELINE_CALLS };
    progress(`timeline: p50 ${fmt(timeline.p50)} ms, p95 ${fmt(timeline.p95)} ms`);

    let kubectl: SizeFigures["kubectl"] = null;
    if (spawnSync("sh", ["-c", "command -v kubectl"]).status === 0) {
      kubectl = kubectlLoop(healthySample(second.results, KUBECTL_SAMPLE, names), credentials, dir);
      progress(`kubectl: ${kubectl.invocations} invocations in ${fmt(kubectl.seconds)} s`);
    }
    return {
      size,
      first,
      second,
      collectorRssMiB,
      collectorLiveMiB,
      simulatorRssMiB,
      list,
      timeline,
      history,
      firstSweepBytesPerCluster,
      kubectl,
    };
  } finally {
    sim?.child.kill("SIGTERM");
    await closeDb();
    await db.drop();
  }
}

function report(f: SizeFigures) {
  const throughput = (s: Sweep) => s.clusters / s.seconds;
  const sweepLine = (label: string, s: Sweep) =>
    `  ${label} ${fmt(s.rate)} clusters/s sustained, ${fmt(throughput(s))}/s over the whole pass  (${s.clusters} clusters in ${fmt(s.seconds)} s; ${s.ok} ok, ${s.failed} failed, ${s.sweeps - s.clusters} retries; per cluster p50/p95 ${fmt(s.perCluster.p50, 0)}/${fmt(s.perCluster.p95, 0)} ms (read ${fmt(s.phases.read, 0)}, digest ${fmt(s.phases.digest, 0)}, store ${fmt(s.phases.store, 0)} at p50); ${s.written} written, ${s.rowsAdded} history rows added; CPU per cluster: collector ${fmt((1000 * s.cpu.collector) / s.sweeps, 0)} ms, simulator ${fmt((1000 * s.cpu.simulator) / s.sweeps, 0)} ms, Postgres ${s.cpu.postgres >= 0 ? `${fmt((1000 * s.cpu.postgres) / s.sweeps, 0)} ms` : "n/a (backends exited)"}; collector peaks: ${describePeaks(s.peaks)})`;
  const atScale = f.size >= 10_000;
  log(`\n${f.size} clusters, concurrency ${CONCURRENCY}:`);
  log(sweepLine("first sweep (first contact, backfill):", f.first));
  log(sweepLine("second sweep (steady state):          ", f.second));
  log(
    `  sustained sweep throughput:              ${fmt(f.second.rate)} clusters/s  ${atScale ? verdict(f.second.rate, TARGET.sweepPerSecond, "higher", "/s") : `(target ≥ ${TARGET.sweepPerSecond}/s applies at 10,000)`}`,
  );
  log(
    `  a full steady-state pass:                ${fmt(f.second.seconds)} s for ${f.second.clusters} clusters  ${atScale ? verdict(f.second.seconds, 300, "lower", " s (a sweep every 5 minutes)") : ""}`,
  );
  log(
    `  history rows added by the second sweep:  ${f.second.rowsAdded}  (${f.second.written} clusters written; ~0 expected when nothing changed)`,
  );
  log(`  history written by the first sweep:      ${fmt(f.firstSweepBytesPerCluster / 1024)} KiB per cluster (backfill and first facts)`);
  log(
    `  collector (this process) peak RSS:       ${fmt(f.collectorRssMiB)} MiB  ${verdict(f.collectorRssMiB, TARGET.collectorRssMiB, "lower", " MiB")}`,
  );
  log(`  collector heap in use after the sweeps:  ${fmt(f.collectorLiveMiB)} MiB (after a full garbage collection)`);
  log(`  simulator (child process) peak RSS:      ${fmt(f.simulatorRssMiB)} MiB`);
  log(
    `  GET /api/v1/clusters p50/p95:            ${fmt(f.list.p50)} / ${fmt(f.list.p95)} ms  (${LIST_REQUESTS} requests over ${fmt((LIST_REQUESTS * LIST_PACING_MS) / 1000, 0)} s, ${fmt(f.list.bytes / 1024 / 1024, 2)} MiB body)  ${verdict(f.list.p95, TARGET.listP95Ms, "lower", " ms")}`,
  );
  log(
    `  refreshing the fleet list p50/p95:       ${fmt(f.list.refresh.p50)} / ${fmt(f.list.refresh.p95)} ms  (every row read again; at most every 3 s, behind the requests)`,
  );
  log(
    `  cluster timeline, 1 year, p50/p95:       ${fmt(f.timeline.p50)} / ${fmt(f.timeline.p95)} ms  (${TIMELINE_CALLS} calls, ${fmt(f.timeline.points, 0)} points each)  ${verdict(f.timeline.p95, TARGET.timelineP95Ms, "lower", " ms")}`,
  );
  log(
    `  history per cluster-day:                 ${fmt(f.history.perClusterDay, 0)} bytes  (${f.history.rows} rows seeded = ${fmt(f.history.perClusterDayRows, 2)} per cluster-day, ${fmt(f.history.bytes / 1024 / 1024)} MiB)  ${verdict(f.history.perClusterDay, TARGET.bytesPerClusterDay, "lower", " B")}`,
  );
  if (!f.kubectl) log("  kubectl comparison:                      skipped: kubectl is not installed (apt-get install kubernetes-client)");
  else {
    const ratio = f.second.rate / f.kubectl.perSecond;
    log(
      `  kubectl loop (sequential, ${KUBECTL_READS.length} calls/cluster): ${fmt(f.kubectl.perSecond, 2)} clusters/s  (${f.kubectl.clusters} clusters in ${fmt(f.kubectl.seconds)} s, ${f.kubectl.failures} failed calls)`,
    );
    log(`  collector / kubectl:                     ${fmt(ratio, 0)}×  ${verdict(ratio, TARGET.kubectlRatio, "higher", "×")}`);
  }
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-bench-fleet-"));
  process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
  process.env.FLEETSKEW_DATA_DIR = path.join(dir, "data");
  delete process.env.FLEETSKEW_DATABASE_MODE;
  log(
    `machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? "unknown"}), ${fmt(os.totalmem() / 2 ** 30)} GiB; MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? "unset"}, FLEETSKEW_KUBE_WATCH_CLUSTERS=${process.env.FLEETSKEW_KUBE_WATCH_CLUSTERS ?? "unset (1000)"}`,
  );
  // Without the collector's heap limit V8 grows the heap lazily, so peak RSS is not the collector's.
  if (!(globalThis as { gc?: unknown }).gc)
    log(
      "note: run with --expose-gc --max-old-space-size=768 --max-semi-space-size=32 (as npm run bench does): the memory figures are not comparable without them",
    );
  try {
    const figures: SizeFigures[] = [];
    for (const size of SIZES) {
      if (!Number.isInteger(size) || size < 2) throw new Error(`BENCH_FLEET_SIZES must be whole numbers ≥ 2, got ${size}`);
      figures.push(await runSize(size, dir));
      report(figures.at(-1)!);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error("bench failed:", error);
  process.exit(1);
});
