import type {
  ClusterSnapshot,
  ClusterVersionFacts,
  Condition,
  ConditionalUpdate,
  MachineSetFacts,
  NodeFacts,
  PinnedImageProgress,
  PoolFacts,
  VersionHistoryEntry,
} from "../snapshot";

/**
 * Hand-built ClusterSnapshots for domain tests: a healthy base cluster plus the reference cluster
 * (`prod-east`, the fixture files under server/simulator/fixtures) at 4.19.10 and as projected at 4.22.3. Test-only.
 */
/**
 * JSON that never went through ClusterSnapshotSchema, typed as a snapshot: what a domain function
 * would see from a caller that skipped the store's decoding. Tests use it to show the function stays
 * total on malformed data.
 */
export const undecoded = (json: unknown): ClusterSnapshot => json as never;

export const cond = (type: string, status: string, reason: string | null = null, message: string | null = null): Condition => ({
  type,
  status,
  reason,
  message,
  since: null,
});

/** Newest first; the last entry is the install. */
export function history(...versions: string[]): VersionHistoryEntry[] {
  return versions.map((version) => ({ version, state: "Completed", startedTime: null, completionTime: null }));
}

export const healthyCvConditions = (current: string): Condition[] => [
  cond("Available", "True", null, `Done applying ${current}`),
  cond("Failing", "False"),
  cond("Progressing", "False", null, `Cluster version is ${current}`),
  cond("RetrievedUpdates", "True"),
  cond("ReleaseAccepted", "True", "PayloadLoaded", `Payload loaded version="${current}"`),
];

export function versionFacts(
  entries: VersionHistoryEntry[],
  more: { conditions?: Condition[]; availableUpdates?: string[]; conditionalUpdates?: ConditionalUpdate[]; channel?: string } = {},
): ClusterVersionFacts {
  const current = entries.find((h) => h.state === "Completed")?.version ?? entries[0]?.version ?? null;
  return {
    current,
    desired: entries[0]?.version ?? null,
    channel: more.channel ?? null,
    updating: false,
    history: entries,
    conditions: more.conditions ?? healthyCvConditions(current ?? ""),
    availableUpdates: more.availableUpdates ?? [],
    conditionalUpdates: more.conditionalUpdates ?? [],
    multiArch: false,
  };
}

export function machineSet(
  name: string,
  boot: { ocpVersion?: string | null; rhcosBuild?: string | null; skipReason?: string; managedNow?: boolean } = {},
): MachineSetFacts {
  const skip = boot.skipReason ? { action: "skip" as const, reason: boot.skipReason } : null;
  return {
    machineSet: name,
    reference: { platform: "AWS", ami: `ami-${name}`, region: "us-east-1", via: "id" },
    display: `ami-${name} (us-east-1)`,
    key: `aws:us-east-1:ami-${name}`,
    rhcosBuild: boot.rhcosBuild ?? null,
    ocpVersion: boot.ocpVersion ?? null,
    provenance: "catalog",
    matchesStream: null,
    mco:
      skip ??
      (boot.managedNow === false
        ? { action: "skip", reason: "not selected" }
        : { action: "update", reason: "all MachineSets are managed (mode All)" }),
    notes: [],
    replicas: 2,
    ifAllManaged: skip ?? { action: "update", reason: "all MachineSets are managed (mode All)" },
  };
}

export function pool(name: string, more: Partial<PoolFacts> = {}): PoolFacts {
  return {
    name,
    machineCount: 3,
    readyMachineCount: 3,
    updatedMachineCount: 3,
    degradedMachineCount: 0,
    paused: false,
    degraded: false,
    updating: false,
    buildInterrupted: false,
    imageMode: false,
    pinnedImageSets: [],
    degradedMessage: null,
    ...more,
  };
}

export function node(name: string, poolName: string, pinned: Partial<PinnedImageProgress>[] = []): NodeFacts {
  return {
    name,
    pool: poolName,
    roles: [poolName],
    osImage: "Red Hat Enterprise Linux CoreOS 9.6.20250826-1 (Plow)",
    ready: true,
    ephemeralBytes: 100 * 2 ** 30,
    mcoState: "Done",
    pinned: pinned.map((p) => ({
      set: p.set ?? "set",
      currentGeneration: p.currentGeneration ?? null,
      desiredGeneration: p.desiredGeneration ?? null,
      lastFailedGeneration: p.lastFailedGeneration ?? null,
      error: p.error ?? null,
    })),
    pinnedProgressing: false,
    pinnedDegraded: false,
    pinnedMessage: null,
  };
}

/** A healthy AWS cluster at 4.19.10, installed at 4.19.10, boot images managed (default-on), nothing to complain about. */
export function healthyCluster(overrides: Partial<ClusterSnapshot> = {}): ClusterSnapshot {
  return {
    version: versionFacts(history("4.19.10"), { availableUpdates: ["4.19.11"] }),
    platform: "AWS",
    topology: "HighlyAvailable",
    machineConfigOperator: [cond("Upgradeable", "True", "AsExpected"), cond("Degraded", "False"), cond("Available", "True")],
    enforcement: { served: false, spec: null, status: null },
    managedMachineSets: { spec: null, status: "All" },
    optedInAt: "2025-09-16T15:40:00Z",
    bootImageConditions: [],
    bootImageRelease: "4.19.10",
    streamImages: [],
    machineSets: [machineSet("worker-a", { ocpVersion: "4.19.10", rhcosBuild: "9.6.20250701-0" })],
    pools: [pool("master"), pool("worker")],
    nodes: [node("m0", "master"), node("w0", "worker")],
    pinnedImageSets: [],
    imageMode: [],
    adminGates: {},
    adminAcks: {},
    alerts: { firing: [], relevant: 0 },
    problems: [],
    ...overrides,
  };
}

/** Newest first, with the abandoned 4.16.20 attempt recorded as Partial, as in the fixture. */
export const PROD_EAST_HISTORY: VersionHistoryEntry[] = [
  ...history("4.19.10", "4.18.17", "4.17.24", "4.16.21"),
  { version: "4.16.20", state: "Partial", startedTime: null, completionTime: null },
  ...history("4.15.17", "4.14.22", "4.13.19", "4.12.7"),
];

/** The prod-east fixture: AWS, 4.19.10, installed 4.12.7, MachineSets Partial (only infra selected), no skew API yet. */
export function prodEast(): ClusterSnapshot {
  const old = { ocpVersion: "4.12.7", rhcosBuild: "412.86.202301311551-0", managedNow: false };
  return healthyCluster({
    version: versionFacts(PROD_EAST_HISTORY, { availableUpdates: ["4.19.11", "4.19.12"], channel: "stable-4.19" }),
    managedMachineSets: { spec: "Partial", status: "Partial" },
    optedInAt: null,
    machineSets: [
      machineSet("prod-east-7xk2p-infra-us-east-1a", { ocpVersion: "4.19.10", rhcosBuild: "9.6.20250701-0" }),
      machineSet("prod-east-7xk2p-worker-us-east-1a", old),
      machineSet("prod-east-7xk2p-worker-us-east-1b", old),
      machineSet("prod-east-7xk2p-worker-us-east-1c", old),
    ],
    pools: [pool("infra", { machineCount: 2, imageMode: true }), pool("master"), pool("worker", { machineCount: 5 })],
    imageMode: [{ pool: "infra", build: "infra-5d2c1a", buildState: "succeeded" }],
  });
}

export const PROD_EAST_422_MESSAGE =
  "Upgrades have been disabled because the cluster is using OCP boot image version 4.12.7, which is below the minimum required version 4.13.0. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at https://docs.redhat.com/en/documentation/openshift_container_platform/4.22/html/machine_configuration/mco-update-boot-skew-mgmt";

/** The prod-east-422 fixture: the same cluster at 4.22.3 with no admin action; the MCO blocks minor updates. */
export function prodEast422(): ClusterSnapshot {
  const base = prodEast();
  const entries = [...history("4.22.3", "4.21.8", "4.20.12"), ...PROD_EAST_HISTORY];
  return {
    ...base,
    version: versionFacts(entries, {
      channel: "stable-4.22",
      availableUpdates: ["4.22.4", "4.22.5"],
      conditions: [
        ...healthyCvConditions("4.22.3"),
        cond(
          "Upgradeable",
          "False",
          "ClusterBootImageSkewError",
          `Cluster operator machine-config should not be upgraded between minor or major versions: ${PROD_EAST_422_MESSAGE}`,
        ),
      ],
    }),
    machineConfigOperator: [cond("Upgradeable", "False", "ClusterBootImageSkewError", PROD_EAST_422_MESSAGE), cond("Degraded", "False")],
    enforcement: {
      served: true,
      spec: null,
      status: { mode: "Manual", automatic: null, manual: { mode: "OCPVersion", ocpVersion: "4.12.7", rhcosVersion: null } },
    },
    bootImageRelease: "4.22.3",
  };
}

/** prod-east at 4.22.3 after the admin's manual acknowledgement (projected-4.22/machineconfiguration-manual-ack.patch.json) took effect. */
export function prodEast422Acknowledged(): ClusterSnapshot {
  const blocked = prodEast422();
  const manual = { mode: "RHCOSVersion", ocpVersion: null, rhcosVersion: "9.6.20250701-0" };
  // The admin moved the worker MachineSets to the 4.19 stream AMI first, then acknowledged it.
  const updated = { ocpVersion: "4.19.10", rhcosBuild: "9.6.20250701-0", managedNow: false };
  return {
    ...blocked,
    machineSets: blocked.machineSets.map((m) => (m.ocpVersion === "4.12.7" ? machineSet(m.machineSet, updated) : m)),
    version: { ...blocked.version!, conditions: healthyCvConditions("4.22.3") },
    machineConfigOperator: [cond("Upgradeable", "True", "AsExpected"), cond("Degraded", "False")],
    enforcement: { served: true, spec: { mode: "Manual", manual }, status: { mode: "Manual", automatic: null, manual } },
  };
}
