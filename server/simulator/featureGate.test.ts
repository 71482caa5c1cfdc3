import { describe, expect, it } from "vitest";
import { featureGateObject, withVersion } from "./featureGate";

describe("the simulated FeatureGate/cluster", () => {
  it("Default leaves spec.featureSet out; IrreconcilableMachineConfig is off at 4.22 and on from 4.23", () => {
    expect(featureGateObject("4.22.3")).toEqual({
      apiVersion: "config.openshift.io/v1",
      kind: "FeatureGate",
      metadata: { name: "cluster" },
      spec: {},
      status: {
        featureGates: [
          {
            version: "4.22.3",
            enabled: [{ name: "BootImageSkewEnforcement" }],
            disabled: [{ name: "IrreconcilableMachineConfig" }, { name: "OSStreams" }],
          },
        ],
      },
    });
    expect(featureGateObject("4.23.1").status.featureGates[0]!.enabled.map((g) => g.name)).toContain("IrreconcilableMachineConfig");
    expect(featureGateObject("5.0.0").status.featureGates[0]!.disabled).toEqual([]);
  });

  it("TechPreviewNoUpgrade turns gates on earlier; an upgrade lists the new version first", () => {
    const tp = featureGateObject("4.21.9", "TechPreviewNoUpgrade");
    expect(tp.spec).toEqual({ featureSet: "TechPreviewNoUpgrade" });
    expect(tp.status.featureGates[0]!.enabled).toEqual([{ name: "BootImageSkewEnforcement" }, { name: "OSStreams" }]);
    const upgraded = withVersion(tp, "4.22.1", "TechPreviewNoUpgrade");
    expect(upgraded.status.featureGates.map((g) => g.version)).toEqual(["4.22.1", "4.21.9"]);
    expect(upgraded.status.featureGates[0]!.enabled.map((g) => g.name)).toEqual([
      "BootImageSkewEnforcement",
      "IrreconcilableMachineConfig",
      "OSStreams",
    ]);
  });
});
