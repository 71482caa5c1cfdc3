/** What the benchmarks share: percentiles, process memory, a simulated fleet in a child process, bytes a page receives. */
import { spawn, type ChildProcess } from "node:child_process";
import type { Page } from "@playwright/test";
import { readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { sealCredentials } from "../server/clusters/registration";
import { parseKubeconfig, type ClusterCredentials } from "../server/kube/credentials";
import { insertClusters, type NewCluster } from "../server/store/clusters";
import { closeDb, getDb } from "../server/store/db";
import type { HubEndpoints } from "../server/hubs/hubs";
import { sealHubSecrets, syncHub } from "../server/hubs/sync";
import { findHubRecord, insertHub } from "../server/store/hubs";

/** The p-th percentile (nearest rank) of `values`; NaN for none. */
export const percentile = (values: number[], p: number) =>
  values.length ? [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]! : NaN;

/** A process's resident memory now (VmRSS) or at its peak (VmHWM), in MiB (Linux /proc). */
export const procStatus = (pid: number | "self", field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

/**
 * utime + stime of a process in seconds (Linux /proc, clock ticks of 1/100 s); with `reaped`, also the
 * time of its children that have exited and been waited for (cutime + cstime).
 */
export function cpuSeconds(pid: number | "self", reaped = false): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    const own = Number(fields[11]) + Number(fields[12]);
    return (reaped ? own + Number(fields[13]) + Number(fields[14]) : own) / 100;
  } catch {
    return 0;
  }
}

/**
 * Every Postgres server process on this machine (the test server the benchmark's database lives on),
 * with the backends that have exited: the postmaster reaps them, so their time is its children's.
 * Without that, a connection closed during a measurement took its time away from it.
 */
export function postgresCpuSeconds(): number {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, "utf8").trim().startsWith("postgres");
      } catch {
        return false;
      }
    })
    .reduce((sum, pid) => sum + cpuSeconds(Number(pid), true), 0);
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "n/a");

export type MemoryPeaks = { rss: number; heapUsed: number; heapTotal: number; external: number };

/**
 * This process's highest memory figures from now until `stop()`, sampled every 100 ms: resident
 * memory, the heap in use and committed (what V8 holds from the system), and memory outside the heap
 * (Buffers, WebAssembly memories).
 */
export function peakMemory(): { stop: () => MemoryPeaks } {
  const peak: MemoryPeaks = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    for (const key of ["rss", "heapUsed", "heapTotal", "external"] as const) peak[key] = Math.max(peak[key], m[key]);
  };
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

export const describePeaks = (p: MemoryPeaks) =>
  `RSS ${fmt(p.rss / 2 ** 20, 0)} MiB, heap ${fmt(p.heapUsed / 2 ** 20, 0)} MiB in use of ${fmt(p.heapTotal / 2 ** 20, 0)} committed, ${fmt(p.external / 2 ** 20, 0)} MiB outside it`;

export type Simulator = {
  child: ChildProcess;
  /** The kubeconfig the simulator wrote, with a context per cluster. */
  kubeconfig: string;
  startupMs: number;
  /** The simulator's peak resident memory so far, in MiB. */
  peakRssMiB: () => number;
  /** FLEETSKEW_CONNECT_TO for the simulated clusters' Routes (the alerts' Thanos querier). */
  connectTo: string;
};

/** scripts/simulator.ts with `args` in a child process; with `cpuProfileDir`, it writes a CPU profile there when it exits. */
function spawnSimulator(args: string[], cpuProfileDir?: string): ChildProcess {
  // node --import tsx runs the simulator in this child itself (the tsx CLI would add a process), so its RSS is the simulator's alone.
  return spawn(
    process.execPath,
    [
      ...(cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", cpuProfileDir] : []),
      "--import",
      "tsx",
      path.join(__dirname, "../scripts/simulator.ts"),
      ...args,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
}

/**
 * Starts scripts/simulator.ts with `clusters` generated clusters on a free port, its kubeconfig in
 * `dir`; with `cpuProfileDir`, the simulator writes a CPU profile there when it exits.
 */
export async function startSimulator(clusters: number, dir: string, cpuProfileDir?: string): Promise<Simulator> {
  const kubeconfigFile = path.join(dir, "fleet.kubeconfig");
  const started = performance.now();
  const child = spawnSimulator(["--clusters", String(clusters), "--port", "0", "--kubeconfig", kubeconfigFile], cpuProfileDir);
  let printed = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => {
      printed += d.toString();
      if (printed.includes("kubeconfig")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`simulator exited with ${code}`)));
  });
  const startupMs = performance.now() - started;
  let peak = 0;
  return {
    child,
    kubeconfig: readFileSync(kubeconfigFile, "utf8"),
    startupMs,
    connectTo: /FLEETSKEW_CONNECT_TO=(\S+)/.exec(printed)?.[1] ?? "",
    peakRssMiB: () => {
      try {
        peak = Math.max(peak, procStatus(child.pid!, "VmHWM"));
      } catch {
        /* exited */
      }
      return peak;
    },
  };
}

/** Registers every simulated cluster through the store, credentials sealed as registration does. */
export async function registerFleet(kubeconfigText: string): Promise<{ names: string[]; credentials: Map<string, ClusterCredentials> }> {
  const kubeconfig = parseKubeconfig(kubeconfigText);
  const credentials = new Map<string, ClusterCredentials>();
  for (const context of kubeconfig.contexts) credentials.set(context.name, kubeconfig.credentialsFor(context.name));
  const names = [...credentials.keys()];
  for (let i = 0; i < names.length; i += 1_000) {
    const batch: NewCluster[] = [];
    for (const name of names.slice(i, i + 1_000)) {
      const c = credentials.get(name)!;
      batch.push({
        name,
        displayName: name,
        labels: { site: name.split("-")[0]!, region: name.split("-")[1] ?? "none" },
        platform: null,
        apiUrl: c.server,
        encryptedCredentials: await sealCredentials(name, c),
      });
    }
    await insertClusters(batch, { actor: "bench" });
  }
  // The database client goes with what it cached for these inserts (their query plans: several KB a
  // cluster, docs/benchmarks.md), which a collector process, registering nothing, would not hold; the
  // next use opens another.
  await closeDb();
  return { names, credentials };
}

/** Transfer sizes (headers and body, as on the wire) of every response a page receives while `work` runs. */
export async function bytesDuring(page: Page, work: () => Promise<void>): Promise<{ bytes: number; responses: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Network.enable");
  let bytes = 0;
  let responses = 0;
  cdp.on("Network.loadingFinished", (e) => {
    bytes += e.encodedDataLength;
    responses++;
  });
  await work();
  await cdp.detach();
  return { bytes, responses };
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

export type HubSimulatorProcess = {
  child: ChildProcess;
  /** What registering the hub takes (its API, the proxy, their CAs and tokens). */
  registration: HubEndpoints;
  /** The simulated managed clusters' own API, `<clustersUrl>/clusters/<name>`. */
  clustersUrl: string;
};

/**
 * Starts a simulated ACM hub of `clusters` managed clusters in a process of its own
 * (`npm run simulator -- --hub`), ClusterPermissions applied 0.5 s after they are created; with
 * `cpuProfileDir`, it writes a CPU profile there when it exits.
 */
export async function startHubSimulator(clusters: number, dir: string, seed = 1, cpuProfileDir?: string): Promise<HubSimulatorProcess> {
  const file = path.join(dir, "hub.json");
  const clusterPort = await freePort();
  const child = spawnSimulator(
    [
      "--hub",
      "--clusters",
      String(clusters),
      "--seed",
      String(seed),
      "--port",
      String(clusterPort),
      "--hub-port",
      "0",
      "--proxy-port",
      "0",
      "--permission-delay",
      "500",
      "--registration",
      file,
    ],
    cpuProfileDir,
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("registration") && resolve());
    child.on("exit", (code) => reject(new Error(`hub simulator exited with ${code}`)));
  });
  return { child, registration: JSON.parse(readFileSync(file, "utf8")) as HubEndpoints, clustersUrl: `https://127.0.0.1:${clusterPort}` };
}

/**
 * Registers the hub as an admin would (impersonation, the hub's cap at `concurrency`) and syncs it
 * until its clusters are registered: the first sync asks for every ClusterPermission, later ones
 * register clusters as the hub applies them. Returns how many clusters the fleet holds.
 */
export async function onboardHub(name: string, r: HubEndpoints, concurrency: number): Promise<number> {
  await insertHub(
    {
      name,
      apiUrl: r.hubApiUrl,
      proxyUrl: r.proxyUrl,
      access: "impersonation",
      concurrency,
      createdBy: "bench",
      encryptedCredentials: await sealHubSecrets(name, {
        ca: r.ca,
        readerToken: r.readerToken,
        proxyCa: r.proxyCa,
        proxyToken: r.proxyToken,
        proxyImpersonatedUser: r.proxyImpersonatedUser,
      }),
    },
    { actor: "bench" },
  );
  let registered = 0;
  for (let pass = 0; pass < 30; pass++) {
    const result = await syncHub((await findHubRecord(name))!);
    registered = await getDb().cluster.count();
    if (pass > 0 && result.registered === 0 && result.permissionsCreated === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  return registered;
}
