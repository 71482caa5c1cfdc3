import { getDb } from "./db";

export type ContactStatus = "unknown" | "ok" | "unreachable" | "unauthorized" | "stale";

/** What the UI may see of a cluster: never its credentials. */
export type ClusterSummary = {
  id: string;
  name: string;
  displayName: string;
  labels: Record<string, string>;
  platform: string | null;
  apiUrl: string;
  lastContactAt: string | null;
  lastContactStatus: ContactStatus;
  lastContactError: string | null;
};

export async function countClusters(): Promise<number> {
  return getDb().cluster.count();
}

export async function listClusterSummaries(): Promise<ClusterSummary[]> {
  const rows = await getDb().cluster.findMany({
    orderBy: { name: "asc" },
    omit: { encryptedCredentials: true },
  });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    displayName: r.displayName,
    labels: (r.labels ?? {}) as Record<string, string>,
    platform: r.platform,
    apiUrl: r.apiUrl,
    lastContactAt: r.lastContactAt?.toISOString() ?? null,
    lastContactStatus: r.lastContactStatus,
    lastContactError: r.lastContactError,
  }));
}
