import { describe, expect, it } from "vitest";
import { generatedObjects } from "./scenarios/generate";
import { paramsFor } from "./scenarios/params";
import { NEWEST_PATCH, updatesFor } from "./updateGraph";

const versions = (u: ReturnType<typeof updatesFor>) => ({
  available: u.availableUpdates.map((r) => r.version),
  conditional: u.conditionalUpdates.map((c) => [c.release.version, c.risks.map((r) => r.name)]),
});

describe("the simulated update graph", () => {
  it("offers only newer patches of the cluster's minor on its stable channel, the newest one held back", () => {
    const { available, conditional } = versions(updatesFor("4.19.28", "stable-4.19"));
    expect(available).toEqual(["4.19.29", "4.19.30", "4.19.31"]);
    expect(conditional).toEqual([]);
    expect(versions(updatesFor("4.19.28", "fast-4.19")).available).toEqual(["4.19.29", "4.19.30", "4.19.31", `4.19.${NEWEST_PATCH[19]}`]);
  });

  it("offers the next minor only on its channel and from a recent patch, its first patches as conditional updates with their risks", () => {
    expect(versions(updatesFor("4.19.28", "stable-4.19")).available.some((v) => v.startsWith("4.20."))).toBe(false);
    const { available, conditional } = versions(updatesFor("4.19.28", "stable-4.20"));
    expect(available).toContain("4.20.2");
    expect(conditional).toContainEqual(["4.20.0", ["EarlyMinorRelease"]]);
    expect(conditional).toContainEqual(["4.20.1", ["EarlyMinorRelease"]]);
    expect(versions(updatesFor("4.19.3", "stable-4.20")).available.some((v) => v.startsWith("4.20."))).toBe(false);
  });

  it("lists a release with a known issue only as a conditional update, Recommended=False with the risk's words", () => {
    const u = updatesFor("4.19.3", "stable-4.19");
    expect(u.availableUpdates.map((r) => r.version)).not.toContain("4.19.8");
    const risky = u.conditionalUpdates.find((c) => c.release.version === "4.19.8")!;
    expect(risky.risks.map((r) => r.name)).toEqual(["OVNHostNetworkPolicy"]);
    expect(risky.conditions[0]).toMatchObject({ type: "Recommended", status: "False", reason: "OVNHostNetworkPolicy" });
  });

  it("offers nothing on a channel of an older minor or without a channel, and nothing past the newest release", () => {
    expect(versions(updatesFor("4.19.10", "stable-4.18"))).toEqual({ available: [], conditional: [] });
    expect(versions(updatesFor("4.19.10", ""))).toEqual({ available: [], conditional: [] });
    expect(versions(updatesFor(`4.23.${NEWEST_PATCH[23]}`, "candidate-4.23"))).toEqual({ available: [], conditional: [] });
  });

  it("gives generated clusters the updates of their own version, not one list for all", () => {
    const lists = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const cv = generatedObjects(paramsFor(i, 1)).find((o) => o.kind === "ClusterVersion") as unknown as {
        status: { desired: { version: string }; availableUpdates: { version: string }[] };
      };
      const current = cv.status.desired.version;
      const offered = cv.status.availableUpdates.map((u) => u.version);
      const [, minor, patch] = current.split(".").map(Number);
      expect(offered.every((v) => Number(v.split(".")[1]) === minor && Number(v.split(".")[2]) > patch!)).toBe(true);
      lists.set(current, offered.join(","));
    }
    expect(new Set(lists.values()).size).toBeGreaterThan(10);
  });
});
