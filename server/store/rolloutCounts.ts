/**
 * Rollouts' clusters counted, never listed: per wave and state for one rollout's view, and for every
 * rollout that has not ended as /metrics reports them, at a cost bounded by those rollouts' clusters.
 */
import { getDb } from "./db";
import { queryText } from "./fleet";
import type { RolloutStatus } from "./rolloutRecords";

/** How many clusters are in each state, per wave (-1: excluded): the picture of the waves, in one query. */
export async function rolloutCounts(rolloutId: string): Promise<{ wave: number; state: string; count: number }[]> {
  const rows = await getDb().rolloutCluster.groupBy({ by: ["wave", "state"], where: { rolloutId }, _count: { _all: true } });
  return rows.map((r) => ({ wave: r.wave, state: r.state, count: r._count._all }));
}

/** One rollout that has not ended, with its clusters counted per wave and state, as /metrics reports it. */
export type ActiveRolloutCounts = {
  number: number;
  kind: string;
  status: string;
  /** As the plan stored them: `{count}` or `{percent}`, and the soak in ms. */
  maxFailures: unknown;
  minSuccessTime: unknown;
  /** The rollout's waves, in order (a wave may have no cluster). */
  waves: number[];
  groups: { wave: number; state: string; count: number; lastFinishedMs: number }[];
};

/**
 * The rollouts that have not ended (running first, then paused, then awaiting approval; oldest
 * first), at most `limit` of them, each with its clusters counted per wave and state, and how many
 * there are in all. Two queries, whose cost is the clusters of those rollouts (read through the
 * `(rolloutId, state)` index), never the fleet's or the finished rollouts': the rollouts with their
 * waves once each, then their counts. (One joined query repeated each rollout's waves on every
 * count's row: waves × counts, 600 MB sorted on disk for a rollout of 10,000 one-cluster waves.)
 */
export async function activeRolloutCounts(limit: number): Promise<{ total: number; rollouts: ActiveRolloutCounts[] }> {
  const order = ["running", "paused", "awaiting-approval"] satisfies RolloutStatus[];
  const heads = await queryText(
    `SELECT r."id", r."number", r."kind", r."status", count(*) OVER (), r."request"->'strategy'->'maxFailures',
            r."request"->'strategy'->'minSuccessTime',
            (SELECT array_to_json(coalesce(array_agg(w."index" ORDER BY w."index"), '{}')) FROM "RolloutWave" w WHERE w."rolloutId" = r."id")
       FROM "Rollout" r WHERE r."status" = ANY($1::text[])
      ORDER BY array_position($1::text[], r."status"), r."number" LIMIT $2`,
    [order, limit],
  );
  if (!heads.length) return { total: 0, rollouts: [] };
  const byId = new Map<string, ActiveRolloutCounts>();
  for (const r of heads)
    byId.set(r[0]!, {
      number: Number(r[1]),
      kind: r[2]!,
      status: r[3]!,
      maxFailures: r[5] ? JSON.parse(r[5]) : null,
      minSuccessTime: r[6] ? JSON.parse(r[6]) : null,
      waves: JSON.parse(r[7] ?? "[]") as number[],
      groups: [],
    });
  const counts = await queryText(
    `SELECT rc."rolloutId", rc."wave", rc."state", count(*), coalesce(EXTRACT(EPOCH FROM max(rc."finishedAt")) * 1000, 0)::float8
       FROM "RolloutCluster" rc WHERE rc."rolloutId" = ANY($1::uuid[])
      GROUP BY rc."rolloutId", rc."wave", rc."state"`,
    [[...byId.keys()]],
  );
  for (const c of counts)
    byId.get(c[0]!)?.groups.push({ wave: Number(c[1]), state: c[2]!, count: Number(c[3]), lastFinishedMs: Number(c[4]) });
  return { total: Number(heads[0]![4]), rollouts: [...byId.values()] };
}
