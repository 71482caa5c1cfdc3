import { describe, expect, it } from "vitest";
import { irreconcilableOverridesGate } from "../domain/mcoRelease";
import { CapturedCluster } from "../kube/captured";
import type { DumpObject } from "../kube/dumps";
import { readFeatureGate } from "../kube/readers";
import { featureGateOf } from "../preview/clusterPreview";
import { featureGateFacts } from "./normalize";

/*
 * FeatureGate/cluster (openshift/api config/v1 types_feature.go): spec.featureSet, "" or unset being
 * Default, and status.featureGates[] per version. The MCO asks its feature gate handler
 * (update.go `update`, render_controller.go: fgHandler.Enabled(FeatureGateIrreconcilableMachineConfig)),
 * which answers from that status for the running version (docs/openshift.md §25).
 */
const featureGate = (spec: Record<string, unknown>, entries: { version: string; enabled: string[]; disabled: string[] }[]): DumpObject => ({
  apiVersion: "config.openshift.io/v1",
  kind: "FeatureGate",
  metadata: { name: "cluster" },
  spec,
  status: {
    featureGates: entries.map((e) => ({
      version: e.version,
      enabled: e.enabled.map((name) => ({ name })),
      disabled: e.disabled.map((name) => ({ name })),
    })),
  },
});

describe("FeatureGate/cluster in the snapshot and the preview", () => {
  const techPreview = featureGate({ featureSet: "TechPreviewNoUpgrade" }, [
    { version: "4.22.3", enabled: ["IrreconcilableMachineConfig", "BootImageSkewEnforcement"], disabled: [] },
    { version: "4.21.9", enabled: ["BootImageSkewEnforcement"], disabled: [] },
  ]);

  it("featureGateFacts: the feature set and the gates enabled at the cluster's current version", async () => {
    const problems: never[] = [];
    const r = await readFeatureGate(new CapturedCluster([techPreview]));
    expect(featureGateFacts(r, "4.22.3", problems)).toEqual({
      featureSet: "TechPreviewNoUpgrade",
      version: "4.22.3",
      enabled: ["BootImageSkewEnforcement", "IrreconcilableMachineConfig"],
    });
    // No entry for the version (the operators have not listed it yet): the feature set only.
    expect(featureGateFacts(r, "4.23.0", problems)).toEqual({ featureSet: "TechPreviewNoUpgrade", version: null, enabled: null });
    // An empty featureSet is the Default feature set.
    const dflt = await readFeatureGate(new CapturedCluster([featureGate({ featureSet: "" }, [])]));
    expect(featureGateFacts(dflt, "4.22.3", problems)?.featureSet).toBe("Default");
    expect(problems).toEqual([]);
  });

  it("a capture without it: null and no problem (not served or not captured is not an error)", async () => {
    const problems: never[] = [];
    expect(featureGateFacts(await readFeatureGate(new CapturedCluster([])), "4.22.3", problems)).toBeNull();
    expect(problems).toEqual([]);
  });

  it("the preview takes the cluster's own: its status for the release decides IrreconcilableMachineConfig, before the feature set's table", async () => {
    const r = await readFeatureGate(new CapturedCluster([techPreview]));
    const { featureSet, enabledFeatureGates } = featureGateOf(r, "4.22.3");
    expect(featureSet).toBe("TechPreviewNoUpgrade");
    const gate = irreconcilableOverridesGate("4.22.3", featureSet, false, enabledFeatureGates);
    expect(gate).toEqual({
      enabled: true,
      basis: "FeatureGate/cluster status lists IrreconcilableMachineConfig as enabled at 4.22.3 (feature set TechPreviewNoUpgrade)",
    });
    // A Default 4.22 cluster whose status lists the gate off: not read, whatever the object holds.
    const off = featureGateOf(
      await readFeatureGate(
        new CapturedCluster([featureGate({}, [{ version: "4.22.3", enabled: [], disabled: ["IrreconcilableMachineConfig"] }])]),
      ),
      "4.22.3",
    );
    expect(irreconcilableOverridesGate("4.22.3", off.featureSet, true, off.enabledFeatureGates).enabled).toBe(false);
    // Without a status entry the feature set's table decides (TechPreviewNoUpgrade: on at 4.22).
    const noEntry = featureGateOf(r, "4.22.9");
    expect(noEntry.enabledFeatureGates).toBeNull();
    expect(irreconcilableOverridesGate("4.22.9", noEntry.featureSet, false, noEntry.enabledFeatureGates)).toMatchObject({
      enabled: true,
      basis: expect.stringMatching(/this cluster's feature set is TechPreviewNoUpgrade$/),
    });
  });
});
