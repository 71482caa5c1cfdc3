import { Client } from "pg";
import { describe, expect, it } from "vitest";
import { useMigratedDatabase } from "../testing/database";
import { deleteCluster, insertCluster } from "./clusters";
import { getDb } from "./db";

const database = useMigratedDatabase();

describe("removing a cluster", () => {
  it("runs again when PostgreSQL picks it as a deadlock's victim, and leaves nothing of the cluster behind", async () => {
    const summary = await insertCluster(
      {
        name: "edge-deadlock",
        displayName: "edge-deadlock",
        labels: {},
        platform: null,
        apiUrl: "https://api.edge.example:6443",
        encryptedCredentials: Buffer.from("x"),
      },
      { actor: "test" },
    );
    const id = (await getDb().cluster.findUniqueOrThrow({ where: { name: "edge-deadlock" } })).id;
    expect(summary).toBeTruthy();
    await getDb().sweepSchedule.upsert({ where: { clusterId: id }, create: { clusterId: id }, update: {} });

    // Another writer (a sweep) holds the cluster's schedule row, then wants the cluster row: the
    // removal takes the cluster row and waits on the schedule row for its cascade. The removal began
    // waiting first, so its deadlock check fires first and PostgreSQL rolls it back.
    const sweep = new Client({ connectionString: database().url });
    await sweep.connect();
    try {
      await sweep.query("BEGIN");
      await sweep.query(`SELECT 1 FROM "SweepSchedule" WHERE "clusterId" = $1 FOR UPDATE`, [id]);
      const removal = deleteCluster("edge-deadlock", { actor: "admin" });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sweepDone = sweep
        .query(`UPDATE "Cluster" SET "displayName" = 'swept' WHERE id = $1`, [id])
        .then(() => sweep.query("COMMIT"))
        .catch(async (error: Error) => {
          await sweep.query("ROLLBACK");
          return error;
        });
      expect(await removal).toBe(true);
      await sweepDone;
    } finally {
      await sweep.end();
    }
    expect(await getDb().cluster.count({ where: { name: "edge-deadlock" } })).toBe(0);
    expect(await getDb().sweepSchedule.count({ where: { clusterId: id } })).toBe(0);
    expect(await getDb().auditEvent.count({ where: { action: "cluster.remove", targetId: "edge-deadlock" } })).toBe(1);
  });
});
