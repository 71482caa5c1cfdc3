import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { ClusterAttention } from "../store/alerts";
import { attentionMetrics, clustersWithSeries, MAX_CLUSTERS_WITH_SERIES } from "./metrics";

/** /metrics stays bounded however much of a fleet is in trouble, and its totals stay exact. */
const cluster = (i: number, kind: "skew" | "sweeps"): ClusterAttention => ({
  name: `c-${String(i).padStart(6, "0")}`,
  labels: { environment: "prod" },
  hub: "hub-1",
  clusterSet: null,
  signals:
    kind === "skew"
      ? {
          skewBlocks: [
            {
              targetKind: "next-minor",
              target: "4.23",
              stage: "now",
              at: "4.23",
              source: "predicted",
              offered: true,
              message: "skew blocks 4.23",
            },
          ],
          upgradeable: null,
          pinnedFailures: [],
          pinnedFailureCount: 0,
        }
      : null,
  failedSweeps: kind === "sweeps" ? 3 : 0,
  contactStatus: kind === "sweeps" ? "unreachable" : "ok",
  contactError: null,
  lastContactAt: null,
  pendingAcknowledgements: 0,
  oldestPendingSeconds: 0,
});

describe("per-cluster series past the cap", () => {
  // A tenth of a 100,000-cluster fleet in trouble: most of it unreachable, some blocked by skew.
  const clusters = Array.from({ length: 10_000 }, (_, i) => cluster(i, i % 10 === 3 ? "skew" : "sweeps"));

  it("keeps the most urgent clusters, the same ones at every scrape", () => {
    const picked = clustersWithSeries(clusters);
    expect(picked).toHaveLength(MAX_CLUSTERS_WITH_SERIES);
    // All 1,000 skew-blocked clusters, then the first unreachable ones by name.
    expect(picked.filter((c) => c.signals).length).toBe(1_000);
    expect(picked.at(-1)!.name).toBe("c-001110");
    expect(clustersWithSeries([...clusters].reverse()).map((c) => c.name)).toEqual(picked.map((c) => c.name));
    expect(clustersWithSeries(clusters.slice(0, 50))).toHaveLength(50);
  });

  it("exports series for the capped clusters only, with exact totals and the number left out", async () => {
    const registry = new Registry();
    attentionMetrics(registry, async () => ({ clusters, rollouts: [] }));
    const text = await registry.metrics();
    const lines = (name: string) => text.split("\n").filter((l) => l.startsWith(`${name}{`)).length;
    expect(lines("fleetskew_cluster_boot_image_skew_blocked")).toBe(1_000);
    expect(lines("fleetskew_cluster_failed_sweeps")).toBe(1_000);
    expect(text).toMatch(/^fleetskew_clusters_needing_action\{signal="failed_sweeps"\} 9000$/m);
    expect(text).toMatch(/^fleetskew_clusters_needing_action\{signal="boot_image_skew_next_minor"\} 1000$/m);
    expect(text).toMatch(/^fleetskew_cluster_series_omitted 8000$/m);
    expect(Buffer.byteLength(text)).toBeLessThan(1_000_000);
  });
});
