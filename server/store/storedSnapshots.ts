import { getDb } from "./db";

/**
 * The stored snapshots of the named clusters, by name: what a plan checks a cluster against
 * without reading it live. Read in batches, so a plan over thousands of clusters holds one batch
 * of snapshots at a time.
 */
export async function* storedSnapshots(names: string[], batch = 250): AsyncGenerator<[string, unknown]> {
  for (let i = 0; i < names.length; i += batch) {
    const rows = await getDb().clusterState.findMany({
      where: { cluster: { name: { in: names.slice(i, i + batch) } } },
      select: { snapshot: true, cluster: { select: { name: true } } },
    });
    for (const row of rows) yield [row.cluster.name, row.snapshot];
  }
}
