import { describe, expect, it } from "vitest";
import { healthyCluster } from "../testing/snapshots";
import { run } from "./testing";

describe("single-node and bare metal", () => {
  it("single-node (SingleReplica) warns: the only node reboots, drains are skipped, skew is not enforced", () => {
    const c = run(healthyCluster({ topology: "SingleReplica" }), "4.20", "single-node");
    expect(c.status).toBe("warn");
    for (const part of ["reboots the only node", "Drains are skipped", "does not enforce boot-image skew"])
      expect(c.detail).toContain(part);
    expect(c.evidence).toEqual([{ kind: "Infrastructure", name: "cluster", field: "status.controlPlaneTopology" }]);
  });

  it.each([
    {
      rule: "legacy path (§2.2 rule 2): enforced",
      legacyPath: true,
      says: /is on the legacy provisioning path \(url set\), so the MCO enforces/,
    },
    {
      rule: "off the legacy path: mode None",
      legacyPath: false,
      says: /is not on the legacy provisioning path \(no object\), so the MCO sets skew enforcement to None/,
    },
    { rule: "unknown path: the MCO assumes legacy", legacyPath: null, says: /not known \(read failed\); the MCO then assumes it is/ },
  ])("bare metal warns that the MCO does not manage its boot images; $rule", ({ legacyPath, says }) => {
    const reason = legacyPath === true ? "url set" : legacyPath === false ? "no object" : "read failed";
    const c = run(healthyCluster({ platform: "BareMetal", bareMetalProvisioning: { legacyPath, reason } }), "4.20", "bare-metal");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("does not manage boot images");
    expect(c.detail).toMatch(says);
  });

  it.each([
    { rule: "a highly available cloud cluster passes both", s: healthyCluster(), single: "pass", metal: "pass" },
    {
      rule: "Infrastructure unreadable makes both unknown",
      s: healthyCluster({ topology: null, platform: null, problems: [{ part: "Infrastructure", kind: "error", message: "forbidden" }] }),
      single: "unknown",
      metal: "unknown",
    },
  ])("$rule", ({ s, single, metal }) => {
    expect(run(s, "4.20", "single-node").status).toBe(single);
    expect(run(s, "4.20", "bare-metal").status).toBe(metal);
  });
});
