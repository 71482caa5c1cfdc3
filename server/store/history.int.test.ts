import { describe, expect, it } from "vitest";
import { useMigratedDatabase } from "../testing/database";
import { insertCluster } from "./clusters";
import { getDb } from "./db";
import { appendClusterFacts, pruneHistory } from "./history";

useMigratedDatabase();

const at = (day: string) => new Date(`${day}T12:00:00Z`);

describe("history retention", () => {
  it("deletes what is older than the cutoff but keeps, per fact and key, the state at the cutoff", async () => {
    const { id: clusterId } = await insertCluster(
      {
        name: "retained",
        displayName: "retained",
        labels: {},
        platform: null,
        apiUrl: "https://example.invalid",
        encryptedCredentials: Buffer.alloc(1),
      },
      { actor: "test" },
    );
    const version = (v: string, day: string) => ({ clusterId, at: at(day), fact: "version", key: "", value: { current: v } });
    const pool = (ready: number, day: string) => ({ clusterId, at: at(day), fact: "pool", key: "worker", value: { ready } });
    await appendClusterFacts([
      version("4.16.1", "2024-01-01"),
      version("4.17.2", "2024-06-01"),
      version("4.18.3", "2025-03-01"), // after the cutoff
      pool(1, "2024-02-01"),
      pool(2, "2024-03-01"),
      { clusterId, at: at("2024-01-15"), fact: "pool", key: "master", value: { ready: 3 } },
    ]);
    const deleted = await pruneHistory(at("2025-01-01"));
    // Gone: 4.16.1 (4.17.2 still describes the cutoff) and worker ready=1 (ready=2 does).
    expect(deleted).toBe(2);
    const left = await getDb().clusterFact.findMany({ where: { clusterId }, orderBy: [{ fact: "asc" }, { key: "asc" }, { at: "asc" }] });
    expect(left.map((f) => [f.fact, f.key, f.value])).toEqual([
      ["pool", "master", { ready: 3 }],
      ["pool", "worker", { ready: 2 }],
      ["version", "", { current: "4.17.2" }],
      ["version", "", { current: "4.18.3" }],
    ]);
    // Pruning again changes nothing.
    expect(await pruneHistory(at("2025-01-01"))).toBe(0);
  });
});
