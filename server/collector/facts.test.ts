import { describe, expect, it } from "vitest";
import { clusterSkew } from "../domain/clusterSkew";
import type { ClusterSnapshot, VersionHistoryEntry } from "../domain/snapshot";
import { healthyCluster, history, machineSet, prodEast, prodEast422, versionFacts } from "../domain/testing/snapshots";
import { backfillOf, type SkewFact } from "./facts";

const NOW = new Date("2026-11-23T00:00:00Z");

/** Gives newest-first history entries completion times a month apart, the newest a month before NOW. */
function dated(entries: VersionHistoryEntry[]): VersionHistoryEntry[] {
  return entries.map((h, i) => {
    const at = new Date(NOW.getTime() - (i + 1) * 30 * 86_400_000).toISOString();
    return { ...h, startedTime: at, completionTime: h.state === "Completed" ? at : null };
  });
}

const withDatedHistory = (s: ClusterSnapshot): ClusterSnapshot => ({
  ...s,
  version: { ...s.version!, history: dated(s.version!.history) },
});

const inferredSkew = (s: ClusterSnapshot) =>
  backfillOf(s, NOW)
    .filter((f) => f.fact === "skew")
    .map((f) => ({ at: f.at, ...(f.value as SkewFact) }));

describe("the inferred past of a cluster seen for the first time", () => {
  it.each([
    ["prod-east at 4.19.10 (MachineSets Partial, installed 4.12.7)", prodEast()],
    ["prod-east at 4.22.3, blocked by its own status", prodEast422()],
  ])("%s: the newest inferred skew agrees with the first observation", (_name, snapshot) => {
    const s = withDatedHistory(snapshot);
    const skew = inferredSkew(s);
    expect(skew.length).toBeGreaterThan(0);
    expect(skew.at(-1)!.status).toBe(clusterSkew(s).status);
  });

  it("is at risk before 4.22 and blocked only from the first release that enforces the limit", () => {
    const s = withDatedHistory(prodEast422());
    const byVersion = new Map<string, string>();
    const releases = s.version!.history.filter((h) => h.state === "Completed").reverse();
    const skew = inferredSkew(s);
    for (const h of releases) {
      const at = new Date(h.completionTime!);
      byVersion.set(h.version, [...skew].reverse().find((f) => f.at <= at)!.status);
    }
    expect(byVersion.get("4.12.7")).toBe("at-risk");
    expect(byVersion.get("4.21.8")).toBe("at-risk");
    expect(byVersion.get("4.22.3")).toBe("blocked");
    // The lag behind each release grows as the cluster moves on with its install image.
    expect(skew.find((f) => f.status === "blocked")).toMatchObject({ oldest: "4.12.7", lag: 10 });
  });

  it("a cluster whose boot images the MCO manages is within the limit in its past too", () => {
    const s = withDatedHistory(
      healthyCluster({
        version: versionFacts(history("4.19.10", "4.18.5", "4.17.3", "4.12.2")),
        optedInAt: null,
        machineSets: [machineSet("worker-a", { ocpVersion: "4.19.10", rhcosBuild: "9.6.20250701-0" })],
      }),
    );
    const skew = inferredSkew(s);
    expect(new Set(skew.map((f) => f.status))).toEqual(new Set(["ok"]));
    expect(skew[0]).toMatchObject({ oldest: "4.12.2", at: new Date(s.version!.history.at(-1)!.completionTime!) });
  });

  it("writes a skew row only when what it says changes", () => {
    const s = withDatedHistory(prodEast());
    const skew = inferredSkew(s);
    const distinct = new Set(skew.map(({ at: _at, ...v }) => JSON.stringify(v)));
    expect(distinct.size).toBe(skew.length);
  });
});
