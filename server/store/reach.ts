/**
 * Which clusters a reach covers, by the one SQL form of a reach (./scope.ts): for checks on named
 * clusters and for lists keyed by cluster id.
 */
import type { Reach } from "../domain/grants";
import { queryText } from "./fleet";
import { adder, reachSql } from "./scope";

/** Of these cluster names, those in reach, with what grants are matched against (name, platform, labels). */
export async function clustersInReach(
  names: readonly string[],
  reach: Reach,
): Promise<{ name: string; platform: string | null; labels: Record<string, string> }[]> {
  if (!names.length) return [];
  const values: unknown[] = [[...new Set(names)]];
  const rows = await queryText(
    `SELECT c."name", c."platform", c."labels" FROM "Cluster" c
      WHERE c."name" = ANY($1::text[]) AND ${reachSql(reach, adder(values), "c")} ORDER BY c."name"`,
    values,
  );
  return rows.map((r) => ({ name: r[0]!, platform: r[1] ?? null, labels: JSON.parse(r[2] ?? "{}") as Record<string, string> }));
}

/** The ids of every cluster in reach (for lists whose rows name a cluster by id). */
export async function clusterIdsInReach(reach: Reach): Promise<string[]> {
  const values: unknown[] = [];
  const rows = await queryText(`SELECT c."id" FROM "Cluster" c WHERE ${reachSql(reach, adder(values), "c")}`, values);
  return rows.map((r) => r[0]!);
}
