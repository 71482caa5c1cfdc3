import type { KubeObject } from "../objectStore";
import { BOOT_IMAGE_BUILDS } from "./bootImages";
import type { ClusterParams } from "./params";
import { readFixture } from "./prodEast";
import { hexOf } from "./random";

/**
 * One generated cluster, worked out once from its parameters: what every builder needs (dates,
 * builds, MachineSets, pools, nodes). Builders turn it into objects; the simulated MCO then settles
 * them (settle.ts), so nothing here decides what the MCO would do.
 */
export type MachineSetPlan = {
  name: string;
  zone: string;
  role: string;
  labels: Record<string, string>;
  /** The RHCOS build it was created with (the install's); the simulated MCO may move it on. */
  build: string;
  owned: boolean;
  windows: boolean;
  customAmi: boolean;
};

export type PoolPlan = { name: string; count: number };

export type ClusterPlan = {
  p: ClusterParams;
  current: string;
  minor: number;
  installMinor: number;
  installBuild: string;
  currentBuild: string;
  /** When the cluster was installed. */
  start: Date;
  /** When each release of its history was reached, oldest first. */
  releases: { version: string; at: Date }[];
  controlPlaneTopology: "SingleReplica" | "HighlyAvailable";
  machineSets: MachineSetPlan[];
  pools: PoolPlan[];
  pinnedName: string;
  hasPins: boolean;
  /** Index of the worker whose pre-load failed (-1: none) and how many workers finished. */
  failedNode: number;
  doneNodes: number;
  rhcosRunning: string;
  osImageURL: string;
  /** The reference cluster's objects of a kind, the templates every generated object starts from. */
  template: (kind: string) => KubeObject[];
};

export const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
export const releaseDigest = (v: string) => `quay.io/openshift-release-dev/ocp-release@sha256:${hexOf(v, 64)}`;
const minorOfVersion = (v: string) => Number(v.split(".")[1]);
const DAY = 86_400_000;

function zonesOf(p: ClusterParams): string[] {
  if (p.platform === "VSphere") return ["fd-a", "fd-b"];
  return ["a", "b", "c"].map((z) => (p.platform === "AWS" ? `${p.region}${z}` : p.platform === "GCP" ? `${p.region}-${z}` : z));
}

export function planFor(p: ClusterParams): ClusterPlan {
  const current = p.history[0]!;
  const minor = minorOfVersion(current);
  const installMinor = minorOfVersion(p.installVersion);
  const installBuild = BOOT_IMAGE_BUILDS[installMinor]!;
  const start = new Date(Date.UTC(2021, 0, 10) + (installMinor - 10) * 120 * DAY);
  const base = readFixture("prod-east");
  const hasMachineSets = p.topology === "standard" && p.platform !== "None";
  const zones = zonesOf(p);
  const machineSets: MachineSetPlan[] = hasMachineSets
    ? zones.map((zone, i) => ({
        name: `${p.infraId}-worker-${zone}`,
        zone,
        role: "worker",
        labels: { "machine.openshift.io/cluster-api-cluster": p.infraId, ...(i === 0 ? { "bootimages.example.com/managed": "true" } : {}) },
        build: installBuild,
        owned: p.ownedMachineSet && i === zones.length - 1,
        windows: false,
        customAmi: p.customAmi && i === 1,
      }))
    : [];
  if (hasMachineSets && p.windowsMachineSet)
    machineSets.push({
      name: `${p.infraId}-windows-${zones[0]}`,
      zone: zones[0]!,
      role: "windows",
      labels: { "machine.openshift.io/cluster-api-cluster": p.infraId },
      build: installBuild,
      owned: false,
      windows: true,
      customAmi: false,
    });
  const pools: PoolPlan[] =
    p.topology === "SNO"
      ? [
          { name: "master", count: 1 },
          { name: "worker", count: 0 },
        ]
      : p.topology === "compact"
        ? [
            { name: "master", count: 3 },
            { name: "worker", count: 0 },
          ]
        : [
            { name: "master", count: 3 },
            { name: "worker", count: 2 + (hexOf(p.name, 2).charCodeAt(0) % 4) },
            ...(p.imageMode ? [{ name: "infra", count: 2 }] : []),
          ];
  const workers = pools.find((x) => x.name === "worker")!.count;
  return {
    p,
    current,
    minor,
    installMinor,
    installBuild,
    currentBuild: BOOT_IMAGE_BUILDS[minor]!,
    start,
    releases: [...p.history].reverse().map((version, i) => ({ version, at: new Date(start.getTime() + i * 100 * DAY) })),
    controlPlaneTopology: p.topology === "SNO" ? "SingleReplica" : "HighlyAvailable",
    machineSets,
    pools,
    pinnedName: "worker-prefetch-app-images",
    hasPins: p.pinned !== "none" && minor >= 19,
    failedNode: p.pinned === "failed" ? 0 : -1,
    doneNodes: p.pinned === "done" ? workers : p.pinned === "progressing" ? Math.floor(workers / 2) : Math.max(0, workers - 1),
    rhcosRunning: minor >= 19 ? `${BOOT_IMAGE_BUILDS[minor]!.replace(/-0$/, "")}-1` : BOOT_IMAGE_BUILDS[minor]!,
    osImageURL: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:${hexOf(`${p.name}/os/${current}`, 64)}`,
    template: (kind) => base.filter((o) => o.kind === kind),
  };
}
