import { getDb } from "./db";

/**
 * Collectors share the fleet by shards (the CollectorShard and CollectorMember tables): every ACM
 * hub's clusters are one shard, named by the hub's id, and the directly registered clusters are
 * spread over DIRECT_SHARDS shards `direct-0`… by their id, so that several collectors still share
 * a fleet registered directly (a hub is swept from one place; direct clusters have no such place). A collector holds its shards under a lease it renews; one that stops renewing (its
 * process killed) loses them when the lease runs out, and the others take them. Each collector takes
 * its fair share (`fairShare`) and gives back what it holds beyond it when another collector joins,
 * so shards spread without a coordinator.
 *
 * A shard says which collector sweeps a hub's clusters; it is not what keeps a cluster from being
 * swept twice at once. That is the cluster's own lease (SweepSchedule, server/store/sweeps.ts): during
 * a handover the old holder finishes the sweeps it claimed, and the new holder's claims skip those
 * clusters until their leases end.
 *
 * Times are the database's, so collectors on hosts whose clocks disagree still agree on a lease.
 */
export const DIRECT_SHARDS = 16;

/** The shard of a directly registered cluster: its id's last byte picks one of DIRECT_SHARDS (as `shardOf` does in SQL). */
export const directShardOf = (clusterId: string): string => `direct-${parseInt(clusterId.slice(-2), 16) % DIRECT_SHARDS}`;

/** SQL: the shard of the cluster row `alias`. */
export const shardOf = (alias: string) =>
  `COALESCE(${alias}."hubId"::text, 'direct-' || (get_byte(uuid_send(${alias}."id"), 15) % ${DIRECT_SHARDS})::text)`;

const NOW = `(now() AT TIME ZONE 'UTC')`;

/**
 * How many of `total` shards the member ranked `rank` (by name) among `members` live collectors
 * holds: the shards split as evenly as they go, the first `total % members` by name holding one more.
 * Every member computes its own from the same table, so the shares add up to the total and, with at
 * least as many shards as collectors, none is left idle (rounding every share up would leave the
 * last ones nothing: nine shards over four collectors as 3, 3, 3, 0).
 */
export function fairShare(total: number, members: number, rank: number): number {
  const each = Math.floor(total / Math.max(1, members));
  return each + (rank < total % Math.max(1, members) ? 1 : 0);
}

export type ShardHolding = {
  /** The shards this collector holds after the call. */
  shards: string[];
  /** Shards given up or taken in this call (what the collector forgets, and what it starts on). */
  released: string[];
  taken: string[];
  /** Live collectors and shards as this call saw them. */
  members: number;
  total: number;
};

/**
 * One renewal round for `worker`: marks it alive, renews its shards, gives back those beyond its fair
 * share and takes free or expired ones up to it. One transaction under an exclusive lock on the shard
 * table, so two collectors never take the same shard in the same moment (the lock is held for a few
 * small statements, once per renewal period per collector).
 */
export async function holdShards(worker: string, leaseMs: number): Promise<ShardHolding> {
  const lease = `(${NOW} + make_interval(secs => ${Math.max(1, leaseMs) / 1000}))`;
  return getDb().$transaction(async (tx) => {
    await tx.$executeRawUnsafe(`LOCK TABLE "CollectorShard" IN EXCLUSIVE MODE`);
    await tx.$executeRawUnsafe(
      `INSERT INTO "CollectorMember" ("worker", "seenAt") VALUES ($1, ${NOW})
       ON CONFLICT ("worker") DO UPDATE SET "seenAt" = ${NOW}`,
      worker,
    );
    // A member is alive while it renews within the lease; the same span a shard stays held.
    await tx.$executeRawUnsafe(
      `DELETE FROM "CollectorMember" WHERE "seenAt" < ${NOW} - make_interval(secs => $1::double precision)`,
      leaseMs / 1000,
    );
    // The shards are the hubs that have swept clusters, and the direct shards that have any: one
    // indexed probe each, not a scan of the fleet, since this runs under the lock. A hub removed (or
    // whose last cluster went) leaves its shard, which is then dropped.
    await tx.$executeRawUnsafe(
      `WITH current AS (
         SELECT h."id"::text AS "shard" FROM "Hub" h
          WHERE EXISTS (SELECT 1 FROM "Cluster" c WHERE c."hubId" = h."id" AND NOT c."offline")
         UNION ALL
         SELECT 'direct-' || d FROM generate_series(0, ${DIRECT_SHARDS - 1}) d
          WHERE EXISTS (SELECT 1 FROM "Cluster" c
                         WHERE c."hubId" IS NULL AND NOT c."offline" AND get_byte(uuid_send(c."id"), 15) % ${DIRECT_SHARDS} = d)
       ), added AS (
         INSERT INTO "CollectorShard" ("shard") SELECT "shard" FROM current ON CONFLICT DO NOTHING
       )
       DELETE FROM "CollectorShard" WHERE "shard" NOT IN (SELECT "shard" FROM current)`,
    );
    const [counts] = await tx.$queryRawUnsafe<{ members: number; total: number; rank: number }[]>(
      `SELECT (SELECT count(*) FROM "CollectorMember")::int AS members, (SELECT count(*) FROM "CollectorShard")::int AS total,
              (SELECT count(*) FROM "CollectorMember" WHERE "worker" < $1)::int AS rank`,
      worker,
    );
    const { members, total, rank } = counts!;
    const share = fairShare(total, members, rank);
    await tx.$executeRawUnsafe(`UPDATE "CollectorShard" SET "expiresAt" = ${lease} WHERE "owner" = $1`, worker);
    const held = (
      await tx.$queryRawUnsafe<{ shard: string }[]>(
        `SELECT "shard" FROM "CollectorShard" WHERE "owner" = $1 ORDER BY "heldSince", "shard"`,
        worker,
      )
    ).map((r) => r.shard);
    // Beyond the share: the most recently taken go back first, so long-held shards stay put.
    const released = held.length > share ? held.slice(share) : [];
    if (released.length)
      await tx.$executeRawUnsafe(
        `UPDATE "CollectorShard" SET "owner" = NULL, "expiresAt" = NULL, "heldSince" = NULL WHERE "owner" = $1 AND "shard" = ANY($2::text[])`,
        worker,
        released,
      );
    const room = share - (held.length - released.length);
    const taken =
      room > 0
        ? (
            await tx.$queryRawUnsafe<{ shard: string }[]>(
              `UPDATE "CollectorShard" SET "owner" = $1, "expiresAt" = ${lease}, "heldSince" = ${NOW}
                WHERE "shard" IN (SELECT "shard" FROM "CollectorShard" WHERE "owner" IS NULL OR "expiresAt" < ${NOW} ORDER BY "shard" LIMIT $2)
                RETURNING "shard"`,
              worker,
              room,
            )
          ).map((r) => r.shard)
        : [];
    const shards = [...held.filter((s) => !released.includes(s)), ...taken].sort();
    return { shards, released, taken, members, total };
  });
}

/** Gives back everything `worker` holds (a collector stopping): the others take its shards at their next renewal. */
export async function leaveShards(worker: string): Promise<void> {
  await getDb().$transaction([
    getDb().$executeRawUnsafe(
      `UPDATE "CollectorShard" SET "owner" = NULL, "expiresAt" = NULL, "heldSince" = NULL WHERE "owner" = $1`,
      worker,
    ),
    getDb().$executeRawUnsafe(`DELETE FROM "CollectorMember" WHERE "worker" = $1`, worker),
  ]);
}

export type ShardRow = { shard: string; owner: string | null; held: boolean; heldSince: Date | null };

/** Every shard with its holder (null or `held: false` when its lease ran out), for /metrics and tests. */
export async function listShards(): Promise<ShardRow[]> {
  return getDb().$queryRawUnsafe<ShardRow[]>(
    `SELECT "shard", "owner", COALESCE("expiresAt" >= ${NOW}, false) AS "held", "heldSince" FROM "CollectorShard" ORDER BY "shard"`,
  );
}
