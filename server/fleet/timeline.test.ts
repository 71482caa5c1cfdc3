import { describe, expect, it } from "vitest";
import { MCO_SKEW_LIMITS } from "../domain/skew";
import type { FactRow } from "../store/history";
import { buildTimeline } from "./fleet";

const from = new Date("2026-01-01T00:00:00Z");
const to = new Date("2026-12-01T00:00:00Z");
const row = (at: string, fact: string, value: Record<string, unknown>): FactRow => ({ at, fact, key: "", value, inferred: false });
const titles = (rows: FactRow[]) => buildTimeline("c", rows, from, to, MCO_SKEW_LIMITS).events.map((e) => e.title);

describe("timeline events", () => {
  it("a first observation that nothing is blocked, or that the API has no enforcement yet, is no event", () => {
    expect(
      titles([
        row("2026-03-01T00:00:00Z", "upgradeable", { status: "True", reason: null }),
        row("2026-03-01T00:00:00Z", "enforcement", { mode: null, ocpVersion: null, rhcosVersion: null }),
      ]),
    ).toEqual([]);
  });

  it("a block, its end, and a change of enforcement are events; repeats are not", () => {
    expect(
      titles(
        [
          row("2026-02-01T00:00:00Z", "upgradeable", { status: "True" }),
          row("2026-03-01T00:00:00Z", "upgradeable", { status: "False", reason: "ClusterBootImageSkewError" }),
          row("2026-03-02T00:00:00Z", "upgradeable", { status: "False", reason: "ClusterBootImageSkewError", message: "reworded" }),
          row("2026-04-01T00:00:00Z", "upgradeable", { status: "True" }),
          row("2026-02-01T00:00:00Z", "enforcement", { mode: "Manual", ocpVersion: "4.12.7" }),
          row("2026-04-01T00:00:00Z", "enforcement", { mode: "Manual", rhcosVersion: "9.6.20250701-0" }),
        ].sort((a, b) => a.at.localeCompare(b.at)),
      ),
    ).toEqual([
      "Skew enforcement Manual (4.12.7)",
      "Upgradeable=False (ClusterBootImageSkewError)",
      "Upgradeable again",
      "Skew enforcement Manual (9.6.20250701-0)",
    ]);
  });

  it("a state from before the window decides whether the first row inside it is a change", () => {
    expect(
      titles([
        row("2025-06-01T00:00:00Z", "upgradeable", { status: "False", reason: "AdminAckRequired" }),
        row("2026-05-01T00:00:00Z", "upgradeable", { status: "True" }),
      ]),
    ).toEqual(["Upgradeable again"]);
  });
});
