import { describe, expect, it } from "vitest";
import { useMigratedDatabase } from "../testing/database";
import { insertCluster } from "./clusters";
import { getDb } from "./db";
import { recordUnchangedSweeps } from "./history";

useMigratedDatabase();

/** A cluster swept before (its snapshot's hash stored), leased now by `owner`. */
async function sweptCluster(name: string, snapshotHash: string, owner: string) {
  await insertCluster(
    {
      name,
      displayName: name,
      labels: {},
      platform: null,
      apiUrl: `https://api.${name}.example:6443`,
      encryptedCredentials: Buffer.from("x"),
    },
    { actor: "test" },
  );
  const id = (await getDb().cluster.findUniqueOrThrow({ where: { name } })).id;
  const long = new Date("2026-01-01T00:00:00Z");
  await getDb().clusterState.create({
    data: {
      clusterId: id,
      snapshot: {},
      factHashes: { _snapshot: snapshotHash },
      observedAt: long,
      lastSeenAt: long,
      skewStatus: "ok",
      skewSummary: "",
      readinessStatus: "unknown",
    },
  });
  await getDb().sweepSchedule.upsert({
    where: { clusterId: id },
    create: { clusterId: id, leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + 60_000) },
    update: { leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + 60_000) },
  });
  return id;
}

describe("unchanged sweeps stored together", () => {
  it("records, in one statement, exactly the clusters that look as before and whose lease this worker holds", async () => {
    const same = await sweptCluster("edge-same", "h1", "collector-a");
    const changed = await sweptCluster("edge-changed", "h1", "collector-a");
    const elsewhere = await sweptCluster("edge-elsewhere", "h1", "collector-b");
    const at = new Date("2026-11-29T04:10:00.123Z");
    const next = new Date("2026-11-29T04:15:00.456Z");
    const sweep = (clusterId: string, snapshotHash: string) => ({
      clusterId,
      worker: "collector-a",
      at,
      snapshotHash,
      durationMs: 812.6,
      nextSweepAt: next,
    });

    const recorded = await recordUnchangedSweeps("collector-a", [sweep(same, "h1"), sweep(changed, "h2"), sweep(elsewhere, "h1")]);
    expect([...recorded]).toEqual([same]);

    const schedule = await getDb().sweepSchedule.findUniqueOrThrow({ where: { clusterId: same } });
    expect(schedule).toMatchObject({
      leaseOwner: null,
      leaseExpiresAt: null,
      nextSweepAt: next,
      lastSweepAt: at,
      lastDurationMs: 813,
      lastSweptBy: "collector-a",
      failures: 0,
    });
    expect((await getDb().clusterState.findUniqueOrThrow({ where: { clusterId: same } })).lastSeenAt).toEqual(at);
    expect(await getDb().cluster.findUniqueOrThrow({ where: { id: same } })).toMatchObject({ lastContactAt: at, lastContactStatus: "ok" });

    // The others are left for recordSweepSuccess to decide (a change) or to their holder (another lease).
    for (const id of [changed, elsewhere]) {
      expect((await getDb().sweepSchedule.findUniqueOrThrow({ where: { clusterId: id } })).leaseOwner).not.toBeNull();
      expect((await getDb().clusterState.findUniqueOrThrow({ where: { clusterId: id } })).lastSeenAt).toEqual(
        new Date("2026-01-01T00:00:00Z"),
      );
    }
    expect(await recordUnchangedSweeps("collector-a", [])).toEqual(new Set());
  });
});
