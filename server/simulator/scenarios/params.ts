import type { Faults } from "../cluster";
import { AWS_REGIONS, BOOT_IMAGE_BUILDS } from "./bootImages";
import { hexOf, pick, rng, weighted } from "./random";

export type Platform = "AWS" | "GCP" | "Azure" | "VSphere" | "BareMetal" | "None";
export type Topology = "SNO" | "compact" | "standard";
export type PinnedState = "none" | "progressing" | "done" | "failed";
export type Enforcement =
  | null
  | { mode: "None" }
  | { mode: "Manual"; manual: { mode: "OCPVersion"; ocpVersion: string } | { mode: "RHCOSVersion"; rhcosVersion: string } };

/** Everything that distinguishes one generated cluster; its plan and objects follow from it. */
export type ClusterParams = {
  name: string;
  infraId: string;
  platform: Platform;
  region: string;
  topology: Topology;
  installVersion: string;
  history: string[]; // newest first
  /** spec.managedBootImages for MachineSets; "empty-list" is `machineManagers: []`, the legacy full opt-out. */
  managedBootImages: "unset" | "All" | "Partial" | "None" | "empty-list";
  enforcementSpec: Enforcement;
  /** One MachineSet has an owner reference, so the MCO skips it. */
  ownedMachineSet: boolean;
  /** A Windows MachineSet beside the RHCOS ones, which the MCO excludes. */
  windowsMachineSet: boolean;
  /** One MachineSet boots a custom AMI the MCO does not recognise (AWS). */
  customAmi: boolean;
  /** Infrastructure status.platformStatus.azure.cloudName AzureStackCloud (Azure Stack Hub). */
  azureStackHub: boolean;
  imageMode: boolean;
  pinned: PinnedState;
  /**
   * The metal3.io Provisioning `provisioning-configuration` of a multi-node bare-metal cluster (null:
   * none): "os-download-url" sets spec.provisioningOSDownloadURL, the legacy provisioning path on
   * which the MCO enforces boot-image skew; "no-os-download-url" leaves it empty (docs/openshift.md §16.1).
   */
  provisioning: "os-download-url" | "no-os-download-url" | null;
  faults?: Faults;
};

export const REGIONS: Record<Platform, string[]> = {
  AWS: AWS_REGIONS,
  GCP: ["us-central1", "europe-west4"],
  Azure: ["eastus", "westeurope"],
  VSphere: ["dc1"],
  BareMetal: ["site"],
  None: ["site"],
};

/** Where boot images can be managed at all in 4.x (supported from 4.17 on GCP … 4.21 on Azure/vSphere). */
const canManage = (platform: Platform, minor: number) =>
  (platform === "GCP" && minor >= 17) ||
  (platform === "AWS" && minor >= 18) ||
  ((platform === "Azure" || platform === "VSphere") && minor >= 21);

/**
 * The parameters of generated cluster `index`. The random draws are in a fixed order, so a seed
 * always gives the same fleet; variety added later is decided by the cluster's name instead, so
 * that it leaves every earlier parameter as it was.
 */
export function paramsFor(index: number, seed: number): ClusterParams {
  const r = rng(seed * 1_000_003 + index);
  const platform = weighted<Platform>(r, [
    ["AWS", 35],
    ["GCP", 15],
    ["Azure", 15],
    ["VSphere", 15],
    ["BareMetal", 12],
    ["None", 8],
  ]);
  const topology = weighted<Topology>(r, [
    ["standard", 70],
    ["compact", 15],
    ["SNO", 15],
  ]);
  const currentMinor = 14 + Math.floor(r() * 9); // 4.14–4.22
  const installMinor = Math.min(currentMinor, 10 + Math.floor(r() * 11)); // 4.10–4.20
  const history: string[] = [];
  for (let m = installMinor; m <= currentMinor; m++)
    history.unshift(`4.${m}.${m === installMinor ? 1 + Math.floor(r() * 12) : 3 + Math.floor(r() * 28)}`);
  const name = `${pick(r, ["edge", "prod", "stage", "lab", "plant", "store", "dc"])}-${pick(r, ["north", "south", "east", "west", "central"])}-${String(index).padStart(4, "0")}`;
  const manageable = canManage(platform, currentMinor);
  let managedBootImages = manageable
    ? weighted<ClusterParams["managedBootImages"]>(r, [
        ["unset", 55],
        ["All", 15],
        ["Partial", 15],
        ["None", 15],
      ])
    : "unset";
  const enforcementSpec: Enforcement =
    currentMinor >= 22
      ? weighted<Enforcement>(r, [
          [null, 70],
          [{ mode: "None" }, 10],
          [{ mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: `4.${Math.max(13, installMinor)}.0` } }, 10],
          [{ mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: BOOT_IMAGE_BUILDS[Math.max(installMinor, 16)]! } }, 10],
        ])
      : null;
  const faultKind = weighted(r, [
    ["none", 94],
    ["latency", 2],
    ["errors", 1],
    ["timeout", 1],
    ["malformed", 1],
    ["flapping", 1],
  ] as const);
  const faults: Faults | undefined =
    faultKind === "latency"
      ? { latencyMs: 1500 }
      : faultKind === "errors"
        ? { errorEvery: 2 }
        : faultKind === "timeout"
          ? { timeout: true }
          : faultKind === "malformed"
            ? { malformedEvery: 3 }
            : faultKind === "flapping"
              ? { flapPeriodMs: 60_000 }
              : undefined;
  // Decided by the name, not by the generator (see above).
  const byName = (what: string, below: string) => hexOf(`${name}/${what}`, 1) < below;
  if (manageable && managedBootImages === "unset" && byName("opt-out", "2")) managedBootImages = "empty-list";
  return {
    name,
    infraId: `${name}-${hexOf(name, 5).replace(/[0-9]/g, (d) => "abcdefghij"[Number(d)]!)}`,
    platform,
    region: pick(r, REGIONS[platform]),
    topology,
    installVersion: history.at(-1)!,
    history,
    managedBootImages,
    enforcementSpec,
    ownedMachineSet: r() < 0.08,
    windowsMachineSet: (platform === "AWS" || platform === "Azure") && topology === "standard" && byName("windows", "3"),
    customAmi: platform === "AWS" && topology === "standard" && byName("custom-ami", "2"),
    azureStackHub: platform === "Azure" && byName("azure-stack", "4"),
    imageMode: topology === "standard" && currentMinor >= 19 && r() < 0.15,
    pinned:
      currentMinor >= 19
        ? weighted<PinnedState>(r, [
            ["none", 55],
            ["done", 20],
            ["progressing", 12],
            ["failed", 13],
          ])
        : "none",
    provisioning:
      platform === "BareMetal" && topology !== "SNO" ? (byName("provisioning", "8") ? "os-download-url" : "no-os-download-url") : null,
    faults,
  };
}
