import type { SimCluster } from "../cluster";
import type { KubeObject } from "../objectStore";
import { managedClusterLabels, type HubClusterProfile } from "./objects";

type History = { state: string; version: string; verified?: boolean; startedTime?: string; completionTime?: string };
type ClusterVersion = {
  spec?: { channel?: string; desiredUpdate?: { version?: string } };
  status?: {
    desired?: { version?: string; channels?: string[] };
    history?: History[];
    availableUpdates?: { version: string }[] | null;
    conditions?: { type: string; status: string }[];
  };
};

/**
 * What the ACM agent reads from a cluster for its ManagedClusterInfo and claims (docs/acm.md §1):
 * the version is the newest Completed history entry (MOF getOCPVersion), so it lags a running
 * upgrade; `upgradeFailed` is ClusterVersion Failing=True while the version differs from the
 * desired one (MOF clusterinfo controller).
 */
export function observeCluster(cluster: SimCluster) {
  const info = cluster.kindFor({ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" })!;
  const cv = cluster.store.list(info, undefined)[0] as (KubeObject & ClusterVersion) | undefined;
  const history = cv?.status?.history ?? [];
  const version = history.find((h) => h.state === "Completed")?.version ?? "";
  const desired = cv?.status?.desired?.version ?? version;
  const failing = (cv?.status?.conditions ?? []).some((c) => c.type === "Failing" && c.status === "True");
  const nodeInfo = cluster.kindFor({ apiVersion: "v1", kind: "Node" })!;
  const nodes = cluster.store.list(nodeInfo, undefined).map((n) => ({
    name: n.metadata.name!,
    labels: Object.fromEntries(Object.entries(n.metadata.labels ?? {}).filter(([k]) => k.startsWith("node-role.kubernetes.io/"))),
    capacity: (n.status as { capacity?: Record<string, string> } | undefined)?.capacity ?? {},
    conditions: ((n.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [])
      .filter((c) => c.type === "Ready")
      .map((c) => ({ type: c.type, status: c.status })),
  }));
  return {
    version,
    desired,
    channel: cv?.spec?.channel ?? "",
    channels: cv?.status?.desired?.channels ?? [],
    upgradeFailed: failing && version !== desired,
    history: history.map((h) => ({ version: h.version, state: h.state, verified: h.verified ?? false })),
    availableUpdates: (cv?.status?.availableUpdates ?? []).map((u) => u.version),
    kubeVersion: `v1.${cluster.minor + 13}.7`,
    nodes,
  };
}

/** The ManagedClusterInfo status and ManagedCluster fields after a refresh of what `observeCluster` saw. */
export function refreshed(mci: KubeObject, mc: KubeObject, profile: HubClusterProfile, seen: ReturnType<typeof observeCluster>) {
  const nextProfile: HubClusterProfile = { ...profile, version: seen.version, kubeVersion: seen.kubeVersion, channel: seen.channel };
  const status = (mci.status ?? {}) as Record<string, unknown>;
  const mciStatus = {
    ...status,
    version: seen.kubeVersion,
    distributionInfo: {
      type: "OCP",
      ocp: {
        version: seen.version,
        desired: { version: seen.desired, channels: seen.channels },
        desiredVersion: seen.desired,
        channel: seen.channel,
        upgradeFailed: seen.upgradeFailed,
        availableUpdates: seen.availableUpdates,
        versionAvailableUpdates: seen.availableUpdates.map((version) => ({ version })),
        versionHistory: seen.history,
      },
    },
    nodeList: seen.nodes,
  };
  const mcStatus = (mc.status ?? {}) as { clusterClaims?: { name: string; value: string }[] } & Record<string, unknown>;
  const claims = (mcStatus.clusterClaims ?? []).map((c) =>
    c.name === "version.openshift.io"
      ? { ...c, value: seen.version }
      : c.name === "kubeversion.open-cluster-management.io"
        ? { ...c, value: seen.kubeVersion }
        : c,
  );
  return {
    profile: nextProfile,
    mciStatus,
    labels: { ...mc.metadata.labels, ...managedClusterLabels(nextProfile) },
    mcStatus: { ...mcStatus, version: { kubernetes: seen.kubeVersion }, clusterClaims: claims },
  };
}
