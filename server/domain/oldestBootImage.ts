import { parseOcpVersion, parseRhcosBuild } from "./versions";
import type { ClusterSnapshot, MachineSetFacts } from "./snapshot";
import { bootsWindows } from "./bootImageInputs";

/** The oldest boot image among a cluster's MachineSets, and how far it lags the cluster's release. */
export type OldestBootImage = { machineSet: string; ocpVersion: string | null; rhcosBuild: string | null; lagMinors: number | null };

/** Minor releases between a boot image and the cluster (4.19 cluster, 4.12 image → 7). */
export function lagMinors(clusterVersion: string | null, bootVersion: string | null): number | null {
  const c = parseOcpVersion(clusterVersion);
  const b = parseOcpVersion(bootVersion);
  if (!c || !b || c.major !== b.major) return null;
  return Math.max(0, c.minor - b.minor);
}

/**
 * A MachineSet's lag behind the cluster; null for a Windows MachineSet, whose image is not an RHCOS
 * boot image and which the MCO leaves out (ms_helpers.go `syncMAPIMachineSet`).
 */
export function machineSetLag(clusterVersion: string | null, m: MachineSetFacts): number | null {
  return bootsWindows(m) ? null : lagMinors(clusterVersion, m.ocpVersion);
}

/** Ordering key of a boot image: OCP version when known, else the RHCOS build date. */
function age(m: MachineSetFacts): [number, number, number, string] | null {
  const v = parseOcpVersion(m.ocpVersion);
  if (v) return [v.major, v.minor, v.patch, parseRhcosBuild(m.rhcosBuild)?.date ?? ""];
  const b = parseRhcosBuild(m.rhcosBuild);
  return b ? [Number.MAX_SAFE_INTEGER, 0, 0, b.date] : null;
}

/** The oldest RHCOS boot image: Windows MachineSets are left out, as the MCO leaves them out. */
export function oldestBootImage(s: ClusterSnapshot): OldestBootImage | null {
  let best: MachineSetFacts | null = null;
  let bestAge: ReturnType<typeof age> = null;
  for (const m of s.machineSets) {
    if (bootsWindows(m)) continue;
    const a = age(m);
    if (!a) continue;
    if (!bestAge || compareAge(a, bestAge) < 0) {
      best = m;
      bestAge = a;
    }
  }
  if (!best) return null;
  return {
    machineSet: best.machineSet,
    ocpVersion: best.ocpVersion,
    rhcosBuild: best.rhcosBuild,
    lagMinors: lagMinors(s.version?.current ?? null, best.ocpVersion),
  };
}

function compareAge(a: [number, number, number, string], b: [number, number, number, string]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2] || a[3].localeCompare(b[3]);
}
