import type { InferredFact } from "../server/store/history";
import { rng } from "../server/simulator/scenarios/random";

const DAY = 86_400_000;

/** The RHCOS build each minor release boots, for the boot images the history moves through. */
const RHCOS: Record<number, string> = {
  12: "412.86.202303211731-0",
  13: "413.92.202305021736-0",
  14: "414.92.202310210434-0",
  15: "415.92.202402201450-0",
  16: "416.94.202406251923-0",
  17: "417.94.202410090854-0",
  18: "418.94.202501221327-0",
  19: "9.6.20250523-0",
  20: "9.6.20250925-0",
  21: "9.6.20260115-0",
  22: "9.6.20260402-0",
};

/**
 * A year of realistic changes for one cluster, in the shapes the collector stores (server/collector/facts.ts):
 * a z-stream upgrade about monthly (a minor one about every fourth), pools rolling node by node with
 * readiness dipping, readiness blocked while updating, boot images moved by the MCO after minor
 * upgrades when managed, pinned-image pre-loads now and then (one in eight failing on a node), the
 * skew status and Upgradeable changing a few times, an enforcement change on some clusters.
 * MachineSet and pool names are the cluster's own (from its real sweep).
 */
export function yearOfHistory(
  clusterId: string,
  index: number,
  current: { machineSets: string[]; pools: { name: string; machines: number }[] },
  from: Date,
  to: Date,
) {
  // The simulator's seeded generator: every run seeds the same history.
  const r = rng(7_919 * (index + 1));
  const rows: (InferredFact & { clusterId: string })[] = [];
  const add = (at: number, fact: string, key: string, value: Record<string, unknown> | null) =>
    rows.push({ clusterId, at: new Date(at), fact, key, value });
  const machineSets = current.machineSets.length ? current.machineSets : [`${index}-worker-a`, `${index}-worker-b`, `${index}-worker-c`];
  const pools = current.pools.length
    ? current.pools
    : [
        { name: "master", machines: 3 },
        { name: "worker", machines: 3 + Math.floor(r() * 4) },
      ];
  const workers = pools.find((p) => p.name === "worker")?.machines ?? 3;
  const nodes = Array.from({ length: workers }, (_, i) => `worker-${i}.cluster-${index}.example.com`);
  const managed = r() < 0.5;
  let minor = 16 + Math.floor(r() * 3);
  let patch = 3 + Math.floor(r() * 20);
  let bootMinor = 12 + Math.floor(r() * 3);
  let skewStatus = bootMinor < 13 ? "at-risk" : "ok";
  let pinnedGeneration = 1;
  const version = () => `4.${minor}.${patch}`;
  const boot = (ms: string, at: number) =>
    add(at, "bootImage", ms, {
      display: `ami-${(index * 7919 + bootMinor).toString(16).padStart(17, "0")}`,
      ocpVersion: `4.${bootMinor}.0`,
      rhcosBuild: RHCOS[bootMinor] ?? null,
      provenance: "stream",
      mco: managed ? "update" : "skip",
      reason: managed ? "the MCO updates this MachineSet" : "managedBootImages does not select this MachineSet",
    });
  const skew = (at: number) =>
    add(at, "skew", "", {
      status: skewStatus,
      oldest: `4.${bootMinor}.0`,
      oldestBuild: RHCOS[bootMinor] ?? null,
      lag: minor - bootMinor,
      mode: managed ? "Automatic" : "Manual",
    });
  const readiness = (at: number, status: string, blockers: string[]) =>
    add(at, "readiness", "", { target: `4.${minor + 1}`, status, blockers });
  const upgradeable = (at: number, ok: boolean) =>
    add(at, "upgradeable", "", {
      status: ok ? "True" : "False",
      reason: ok ? null : "ClusterBootImageSkewError",
      message: ok
        ? null
        : `Upgrades are blocked: the boot image of MachineSet ${machineSets[0]} (RHCOS ${RHCOS[bootMinor]}, OCP 4.${bootMinor}.0) is older than the minimum supported 4.13.0; update the boot image or acknowledge it in MachineConfiguration spec.bootImageSkewEnforcement`,
    });
  const pool = (at: number, p: { name: string; machines: number }, updated: number, ready: number, updating: boolean) =>
    add(at, "pool", p.name, {
      machines: p.machines,
      ready,
      updated,
      degraded: false,
      paused: false,
      updating,
      imageMode: false,
    });

  // The state the year opens with.
  const t0 = from.getTime();
  add(t0, "version", "", { current: version(), desired: version(), updating: false });
  for (const ms of machineSets) boot(ms, t0);
  skew(t0);
  upgradeable(t0, skewStatus !== "at-risk");
  for (const p of pools) pool(t0, p, p.machines, p.machines, false);
  readiness(t0, skewStatus === "at-risk" ? "blocked" : "ready", skewStatus === "at-risk" ? ["Boot images are too old"] : []);
  add(t0, "enforcement", "", {
    mode: managed ? "Automatic" : "Manual",
    ocpVersion: `4.${bootMinor}.0`,
    rhcosVersion: null,
    specMode: null,
  });

  let upgrades = 0;
  for (let t = t0 + (10 + r() * 25) * DAY; t < to.getTime() - 3 * DAY; t += (25 + r() * 10) * DAY) {
    upgrades++;
    const isMinor = upgrades % 4 === 0;
    // A pinned-image pre-load a day or two ahead of every other upgrade.
    if (upgrades % 2 === 0) {
      pinnedGeneration++;
      const start = t - (1 + r()) * DAY;
      for (const [i, node] of nodes.entries()) {
        const set = { set: `release-4.${minor}`, desired: pinnedGeneration };
        add(start + i * 300_000, "pinned", node, {
          sets: [{ ...set, current: pinnedGeneration - 1, failed: null }],
          degraded: false,
          error: null,
        });
        const failed = r() < 0.125;
        add(start + (20 + r() * 40) * 60_000, "pinned", node, {
          sets: [{ ...set, current: failed ? pinnedGeneration - 1 : pinnedGeneration, failed: failed ? pinnedGeneration : null }],
          degraded: failed,
          error: failed ? "storage available is less than minimum required" : null,
        });
      }
    }
    const next = isMinor ? { minor: minor + 1, patch: 3 + Math.floor(r() * 5) } : { minor, patch: patch + 1 + Math.floor(r() * 3) };
    const desired = `4.${next.minor}.${next.patch}`;
    add(t, "version", "", { current: version(), desired, updating: true });
    readiness(t, "blocked", ["The cluster is updating"]);
    // Pools roll one node at a time, one sweep (5 min) per step; a node is not ready while it reboots.
    let at = t + 40 * 60_000;
    for (const p of pools) {
      pool(at, p, 0, p.machines, true);
      for (let n = 1; n <= p.machines; n++) {
        at += 5 * 60_000;
        pool(at, p, n - 1, p.machines - 1, true);
        at += 5 * 60_000;
        pool(at, p, n, p.machines, n < p.machines);
      }
    }
    minor = next.minor;
    patch = next.patch;
    add(at, "version", "", { current: version(), desired: version(), updating: false });
    // After a minor upgrade a managed cluster's MachineSets move to the new stream's boot image.
    if (isMinor && managed) {
      bootMinor = minor;
      at += 10 * 60_000;
      for (const ms of machineSets) boot(ms, at);
    }
    const wasAtRisk = skewStatus === "at-risk";
    skewStatus = bootMinor < 13 ? "at-risk" : minor - bootMinor >= 6 ? "at-risk" : "ok";
    if (isMinor) skew(at);
    if (wasAtRisk !== (skewStatus === "at-risk")) upgradeable(at, skewStatus !== "at-risk");
    readiness(at + 60_000, skewStatus === "at-risk" ? "blocked" : "ready", skewStatus === "at-risk" ? ["Boot images are too old"] : []);
  }
  // Some admins switch skew enforcement once a year.
  if (r() < 0.3) {
    const at = t0 + (100 + r() * 200) * DAY;
    add(at, "enforcement", "", { mode: "Manual", ocpVersion: null, rhcosVersion: RHCOS[bootMinor] ?? null, specMode: "Manual" });
  }
  return rows;
}
