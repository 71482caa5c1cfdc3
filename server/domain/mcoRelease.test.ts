import { describe, expect, it } from "vitest";
import { describeMcoRelease, irreconcilableOverridesGate, mcoReleaseFor, mcoRulesFor } from "./mcoRelease";

describe("the MCO release line a prediction follows", () => {
  it.each([
    ["4.19.10", "4.22"],
    ["4.22.3", "4.22"],
    ["4.22", "4.22"],
    ["4.23.0", "4.23"],
    ["5.0.1", "4.23"],
    [null, "4.22"],
    ["garbage", "4.22"],
  ] as const)("%s → %s", (release, line) => {
    expect(mcoReleaseFor(release)).toBe(line);
  });

  it("names the branch and commit it was read from", () => {
    expect(describeMcoRelease("4.22")).toBe("the 4.22 MCO (release-4.22 at 9027c94cde45)");
    expect(mcoRulesFor("4.23.2").awsAmiRecognition).toBe("ec2-owner");
    expect(mcoRulesFor("4.22.2").awsAmiRecognition).toBe("allowed-amis-list");
  });
});

describe("openshift/api features.go FeatureGateIrreconcilableMachineConfig: which feature sets turn it on, per release", () => {
  it.each([
    ["4.22.1", "Default", false],
    ["4.22.1", "TechPreviewNoUpgrade", true],
    ["4.22.1", "DevPreviewNoUpgrade", true],
    ["4.21.9", "Default", false],
    ["4.23.0", "Default", true],
    ["5.0.0", "Default", true],
  ] as const)("%s %s → %s", (release, featureSet, enabled) => {
    expect(irreconcilableOverridesGate(release, featureSet, true).enabled).toBe(enabled);
  });

  it("feature set unknown at 4.22: on only where the gated field is present", () => {
    expect(irreconcilableOverridesGate("4.22.1", null, true).enabled).toBe(true);
    expect(irreconcilableOverridesGate("4.22.1", null, false).enabled).toBe(false);
    expect(irreconcilableOverridesGate("4.23.1", null, false).enabled).toBe(true);
  });
});
