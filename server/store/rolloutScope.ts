/**
 * Rollouts as seen from one part of the fleet: which of a rollout's clusters a reach covers, and
 * which clusters of a selection it covers. Every answer is a count or a set of names already in
 * reach, so nothing outside a reach is ever named to whoever asked.
 */
import type { Reach } from "../domain/grants";
import { queryText } from "./fleet";
import { adder, clusterInReachSql, reachSql } from "./scope";

/**
 * A rollout's clusters that will be (or were) written – every state but excluded – counted, and how
 * many of them the reach covers. A cluster whose row was removed since is outside every scoped reach.
 */
export async function rolloutClustersInReach(rolloutId: string, reach: Reach): Promise<{ total: number; inReach: number }> {
  const values: unknown[] = [rolloutId];
  const inReach = clusterInReachSql(reach, `rc."clusterName"`, adder(values));
  const [row] = await queryText(
    `SELECT count(*), count(*) FILTER (WHERE ${inReach})
       FROM "RolloutCluster" rc WHERE rc."rolloutId" = $1::uuid AND rc."state" <> 'excluded'`,
    values,
  );
  return { total: Number(row?.[0] ?? 0), inReach: Number(row?.[1] ?? 0) };
}

/** Whether any cluster of the rollout (excluded ones too) is in reach: who may see the rollout at all. */
export async function rolloutTouchesReach(rolloutId: string, reach: Reach): Promise<boolean> {
  if (reach.kind === "fleet") return true;
  const values: unknown[] = [rolloutId];
  const rows = await queryText(
    `SELECT 1 FROM "RolloutCluster" rc JOIN "Cluster" c ON c."name" = rc."clusterName"
      WHERE rc."rolloutId" = $1::uuid AND ${reachSql(reach, adder(values), "c")} LIMIT 1`,
    values,
  );
  return rows.length > 0;
}

/** The ids of the rollouts, newest first, that touch at least one cluster in reach. */
export async function rolloutIdsInReach(reach: Reach, limit: number): Promise<string[]> {
  const values: unknown[] = [limit];
  const rows = await queryText(
    `SELECT r."id" FROM "Rollout" r
      WHERE EXISTS (SELECT 1 FROM "RolloutCluster" rc JOIN "Cluster" c ON c."name" = rc."clusterName"
                     WHERE rc."rolloutId" = r."id" AND ${reachSql(reach, adder(values), "c")})
      ORDER BY r."number" DESC LIMIT $1`,
    values,
  );
  return rows.map((r) => r[0]!);
}

/** The names of the rollout's clusters that are in reach (a scoped reader's rows of it). */
export async function clustersOfRolloutInReach(rolloutId: string, reach: Reach): Promise<string[]> {
  const values: unknown[] = [rolloutId];
  const rows = await queryText(
    `SELECT rc."clusterName" FROM "RolloutCluster" rc JOIN "Cluster" c ON c."name" = rc."clusterName"
      WHERE rc."rolloutId" = $1::uuid AND ${reachSql(reach, adder(values), "c")}`,
    values,
  );
  return rows.map((r) => r[0]!);
}
