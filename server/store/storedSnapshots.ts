import { queryText } from "./fleet";

/**
 * Parts of the stored snapshots of the named clusters, by name: what a plan checks a cluster
 * against without reading it live. Only the parts asked for leave the database, in batches, so a
 * plan over thousands of clusters holds one batch of them at a time.
 */
export async function* storedSnapshotParts(names: string[], parts: readonly string[], batch = 500): AsyncGenerator<[string, unknown]> {
  const picked = `jsonb_build_object(${parts.map((_, i) => `$${i + 2}::text, s."snapshot"->$${i + 2}::text`).join(", ")})`;
  for (let i = 0; i < names.length; i += batch) {
    const rows = await queryText(
      `SELECT c."name", ${picked} FROM "Cluster" c JOIN "ClusterState" s ON s."clusterId" = c."id" WHERE c."name" = ANY($1::text[])`,
      [names.slice(i, i + batch), ...parts],
    );
    for (const [name, snapshot] of rows) yield [name!, JSON.parse(snapshot ?? "{}")];
  }
}
