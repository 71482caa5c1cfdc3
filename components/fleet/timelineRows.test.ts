import { describe, expect, it } from "vitest";
import type { Timeline } from "@/server/fleet/contract";
import { chartRows, labelledUpgrades } from "./timelineRows";

const timeline = (over: Partial<Timeline>): Timeline => ({
  cluster: "c",
  from: "2023-01-01T00:00:00.000Z",
  to: "2026-11-01T00:00:00.000Z",
  version: [],
  oldestBootImage: [],
  skew: [],
  limit: null,
  events: [],
  ...over,
});
const upgrade = (at: string, to: string) => ({ at, inferred: false, kind: "upgrade" as const, title: `Upgrade 4.1 → ${to}` });

describe("skew timeline rows", () => {
  it("start where the first line does: an instant with no known version does not widen the axis", () => {
    const rows = chartRows(
      timeline({
        oldestBootImage: [{ at: "2023-02-01T00:00:00.000Z", inferred: true, ocpVersion: null, rhcosBuild: null }],
        version: [{ at: "2025-06-01T00:00:00.000Z", inferred: false, version: "4.18.3" }],
      }),
    );
    expect(new Date(rows[0]!.t).toISOString()).toBe("2025-06-01T00:00:00.000Z");
    expect(rows[0]!.cluster).toBeCloseTo(418.003);
  });
});

describe("labelled upgrades", () => {
  const from = Date.parse("2026-01-01T00:00:00Z");
  const to = Date.parse("2026-07-01T00:00:00Z");

  it("label upgrades a sixth of the axis apart, whatever order they come in", () => {
    const events = [
      upgrade("2026-03-01T00:00:00Z", "4.18.1"),
      upgrade("2026-01-10T00:00:00Z", "4.17.0"),
      // Four days after 4.17.0: its label would run into 4.17.0's.
      upgrade("2026-01-14T00:00:00Z", "4.17.5"),
      upgrade("2026-06-20T00:00:00Z", "4.19.10"),
    ];
    expect([...labelledUpgrades(events, from, to)].sort()).toEqual([0, 1, 3]);
  });

  it("label no other kind of event, and none outside the axis", () => {
    const events = [
      { at: "2026-02-01T00:00:00Z", inferred: false, kind: "acknowledgement" as const, title: "Acknowledged" },
      upgrade("2025-02-01T00:00:00Z", "4.16.0"),
    ];
    expect(labelledUpgrades(events, from, to).size).toBe(0);
  });
});
