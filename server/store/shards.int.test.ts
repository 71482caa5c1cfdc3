import { describe, expect, it } from "vitest";
import { useMigratedDatabase } from "../testing/database";
import { getDb } from "./db";
import { directShardOf, fairShare, holdShards, leaveShards, listShards } from "./shards";
import { claimDueClusters, ensureSchedules } from "./sweeps";

/** Shards among collectors on one database: fair shares, handover when a holder stops renewing, and claims kept within shards. */
useMigratedDatabase();

const LEASE = 1_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const hubs: string[] = [];

async function fleet(): Promise<void> {
  for (const name of ["hub-a", "hub-b", "hub-c"]) {
    const hub = await getDb().hub.create({
      data: {
        name,
        apiUrl: `https://${name}.example:6443`,
        proxyUrl: `https://proxy.${name}.example`,
        encryptedCredentials: Buffer.alloc(1),
        createdBy: "admin",
      },
    });
    hubs.push(hub.id);
    for (let i = 0; i < 4; i++)
      await getDb().cluster.create({
        data: {
          name: `${name}-c${i}`,
          displayName: `${name}-c${i}`,
          apiUrl: "https://x:6443",
          encryptedCredentials: Buffer.alloc(1),
          hubId: hub.id,
          hubState: "available",
        },
      });
  }
  // Direct clusters spread over shards by their id's last byte: 0x00 → direct-0, 0x01 and 0x11 → direct-1.
  for (const [i, last] of ["00", "01", "11"].entries())
    await getDb().cluster.create({
      data: {
        id: `00000000-0000-4000-8000-0000000000${last}`,
        name: `direct-${i}`,
        displayName: `direct-${i}`,
        apiUrl: "https://x:6443",
        encryptedCredentials: Buffer.alloc(1),
      },
    });
  // An imported dump is never swept: it makes no shard of its own.
  await getDb().cluster.create({
    data: { name: "dump", displayName: "dump", apiUrl: "https://x:6443", encryptedCredentials: Buffer.alloc(1), offline: true },
  });
  await ensureSchedules();
}

describe("collector shards", () => {
  it("gives a lone collector every shard: each hub and the direct clusters' shards", async () => {
    await fleet();
    const alone = await holdShards("w1", LEASE);
    expect(alone.shards).toEqual([...hubs, "direct-0", "direct-1"].sort());
    expect(alone).toMatchObject({ members: 1, total: 5, released: [] });
    expect(directShardOf("00000000-0000-4000-8000-000000000011")).toBe("direct-1");
  });

  it("spreads shards as collectors join: the holder gives back what is beyond its share, the newcomer takes it", async () => {
    const first = await holdShards("w2", LEASE);
    // w1 still holds all five: nothing is free yet for w2.
    expect(first.shards).toEqual([]);
    const giving = await holdShards("w1", LEASE);
    expect(giving.shards).toHaveLength(3);
    expect(giving.released).toHaveLength(2);
    const taking = await holdShards("w2", LEASE);
    expect(taking.taken.sort()).toEqual(giving.released.sort());
    expect(new Set([...giving.shards, ...taking.shards]).size).toBe(5);
    const rows = await listShards();
    expect(rows.every((r) => r.held && (r.owner === "w1" || r.owner === "w2"))).toBe(true);
  });

  it("claims only the clusters of the shards held", async () => {
    const w2 = (await listShards()).filter((r) => r.owner === "w2").map((r) => r.shard);
    const claims = await claimDueClusters("w2", 100, 60_000, new Date(), w2);
    expect(claims.length).toBeGreaterThan(0);
    for (const c of claims) expect(w2).toContain(c.hubId ?? directShardOf(c.clusterId));
    expect(await claimDueClusters("nobody", 100, 60_000, new Date(), [])).toEqual([]);
    // The whole fleet when not sharded: what w2 did not claim.
    const rest = await claimDueClusters("w1", 100, 60_000, new Date(), null);
    expect(rest.length + claims.length).toBe(15);
  });

  it("moves a shard within the lease when its holder stops renewing, and gives a stopping holder's shards back at once", async () => {
    const before = await listShards();
    // w2 is killed: it never renews again. w1 renews until w2's lease and membership run out.
    let w1 = await holdShards("w1", LEASE);
    const started = Date.now();
    while (w1.shards.length < 5 && Date.now() - started < LEASE * 4) {
      await sleep(LEASE / 3);
      w1 = await holdShards("w1", LEASE);
    }
    expect(w1.shards).toHaveLength(5);
    expect(Date.now() - started).toBeLessThan(LEASE + 1_000);
    expect(before.filter((r) => r.owner === "w2").every((r) => w1.taken.includes(r.shard) || w1.shards.includes(r.shard))).toBe(true);
    // A third collector joins; w1 stops cleanly: its shards are free at once.
    await holdShards("w3", LEASE);
    await leaveShards("w1");
    const w3 = await holdShards("w3", LEASE);
    expect(w3.shards).toHaveLength(5);
    expect(w3.members).toBe(1);
  });

  it("drops a shard whose hub has no swept cluster left", async () => {
    await getDb().cluster.updateMany({ where: { hubId: hubs[0] }, data: { offline: true } });
    const w3 = await holdShards("w3", LEASE);
    expect(w3.total).toBe(4);
    expect(w3.shards).not.toContain(hubs[0]);
  });

  it("leaves no collector idle while there are as many shards as collectors: four shards over three as 2, 1, 1", async () => {
    await holdShards("w4", LEASE);
    await holdShards("w5", LEASE);
    // w3 held all four; it gives back two, which w4 and w5 take at their next renewal.
    const w3 = await holdShards("w3", LEASE);
    expect(w3).toMatchObject({ members: 3, total: 4 });
    expect(w3.shards).toHaveLength(2);
    const w4 = await holdShards("w4", LEASE);
    const w5 = await holdShards("w5", LEASE);
    expect([w4.shards.length, w5.shards.length]).toEqual([1, 1]);
    expect(new Set([...w3.shards, ...w4.shards, ...w5.shards]).size).toBe(4);
    expect(fairShare(9, 4, 0)).toBe(3);
    expect([1, 2, 3].map((rank) => fairShare(9, 4, rank))).toEqual([2, 2, 2]);
    expect(fairShare(2, 3, 2)).toBe(0);
  });
});
