import { ClusterSnapshotSchema, type ClusterSnapshot } from "../domain/snapshot";

/**
 * A stored snapshot, decoded once here by its schema: what leaves the store is a ClusterSnapshot or
 * nothing. One that does not match (stored by a version of Fleetskew whose snapshot this one cannot
 * read) reads as "not read yet", as a cluster before its first sweep does, until the next sweep
 * replaces it; it is logged once per cluster, so the mismatch is seen without flooding the log.
 */
export function decodeSnapshot(stored: unknown, cluster: string): ClusterSnapshot | null {
  const decoded = ClusterSnapshotSchema.safeParse(stored);
  if (decoded.success) return decoded.data;
  if (!reported.has(cluster)) {
    if (reported.size >= MAX_REPORTED) reported.clear();
    reported.add(cluster);
    const issue = decoded.error.issues[0];
    console.warn(
      `the stored snapshot of cluster ${cluster} does not match its schema (${issue?.path.join(".") || "its top level"}: ${issue?.message}); read as not yet read`,
    );
  }
  return null;
}

const MAX_REPORTED = 10_000;
const reported = new Set<string>();
