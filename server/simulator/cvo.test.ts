import { describe, expect, it } from "vitest";
import { cvoUpgradeable, type CvoInputs } from "./cvo";

const GATE_419 = "ack-4.19-kube-1.33-api-removals-in-4.20";
const GATE_TEXT = "Kubernetes 1.33 and therefore OpenShift 4.20 remove several APIs which require admin consideration.";
const SKEW =
  "Upgrades have been disabled because the cluster is using OCP boot image version 4.12.7, which is below the minimum required version 4.13.0.";
const inputs = (over: Partial<CvoInputs> = {}): CvoInputs => ({
  current: "4.19.10",
  adminGates: { [GATE_419]: GATE_TEXT },
  adminAcks: {},
  operators: [{ name: "machine-config", upgradeable: { status: "True", reason: "AsExpected" } }],
  carried: [],
  ...over,
});

describe("the CVO's Upgradeable conditions (pkg/cvo/upgradeable.go)", () => {
  it("nothing blocks: no condition at all (recent CVOs remove it)", () => {
    expect(cvoUpgradeable(inputs({ adminAcks: { [GATE_419]: "true" } }))).toEqual([]);
  });

  it("an unacknowledged gate of the current minor: Upgradeable=False AdminAckRequired with the gate's text", () => {
    expect(cvoUpgradeable(inputs())).toEqual([{ type: "Upgradeable", status: "False", reason: "AdminAckRequired", message: GATE_TEXT }]);
  });

  it("gates of other minors do not apply; an ack must say exactly true", () => {
    expect(cvoUpgradeable(inputs({ current: "4.18.3" }))).toEqual([]);
    expect(cvoUpgradeable(inputs({ adminAcks: { [GATE_419]: "yes" } }))[0]!.reason).toBe("AdminAckRequired");
  });

  it("a gate of the current minor with an empty text, or a malformed gate name, is reported as such", () => {
    expect(cvoUpgradeable(inputs({ adminGates: { [GATE_419]: "" } }))[0]).toMatchObject({ reason: "AdminAckConfigMapGateValueError" });
    expect(cvoUpgradeable(inputs({ adminGates: { "ack-419": "x" } }))[0]).toMatchObject({ reason: "AdminAckConfigMapGateNameError" });
  });

  it("one blocking operator: its reason, and the message the CVO folds", () => {
    const blocked = inputs({
      adminAcks: { [GATE_419]: "true" },
      operators: [{ name: "machine-config", upgradeable: { status: "False", reason: "ClusterBootImageSkewError", message: SKEW } }],
    });
    expect(cvoUpgradeable(blocked)).toEqual([
      {
        type: "Upgradeable",
        status: "False",
        reason: "ClusterBootImageSkewError",
        message: `Cluster operator machine-config cannot be upgraded between minor versions: ${SKEW}`,
      },
    ]);
  });

  it("several failing checks: each keeps its condition, and Upgradeable says MultipleReasons with every message", () => {
    const both = cvoUpgradeable(
      inputs({
        operators: [{ name: "machine-config", upgradeable: { status: "False", reason: "ClusterBootImageSkewError", message: SKEW } }],
      }),
    );
    expect(both.map((c) => [c.type, c.reason])).toEqual([
      ["Upgradeable", "MultipleReasons"],
      ["UpgradeableAdminAckRequired", "AdminAckRequired"],
      ["UpgradeableClusterOperators", "ClusterBootImageSkewError"],
    ]);
    expect(both[0]!.message).toBe(
      `Cluster should not be upgraded between minor versions for multiple reasons: AdminAckRequired,ClusterBootImageSkewError\n* ${GATE_TEXT}\n* Cluster operator machine-config cannot be upgraded between minor versions: ${SKEW}`,
    );
  });

  it("without an admin-gates ConfigMap to read, gates are not judged; a missing admin-acks is reported as the CVO does", () => {
    expect(cvoUpgradeable(inputs({ adminGates: null }))).toEqual([]);
    expect(cvoUpgradeable(inputs({ adminAcks: null }))).toEqual([
      { type: "Upgradeable", status: "False", reason: "UnableToAccessAdminAcksConfigMap", message: "admin-acks configmap not found." },
    ]);
  });

  it("checks it does not compute (overrides set) are kept and counted among the reasons, in the CVO's order", () => {
    const overrides = {
      type: "UpgradeableClusterVersionOverrides",
      status: "False" as const,
      reason: "ClusterVersionOverridesSet",
      message: "Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before continuing.",
    };
    const c = cvoUpgradeable(inputs({ carried: [overrides] }));
    expect(c.map((x) => x.type)).toEqual(["Upgradeable", "UpgradeableAdminAckRequired", "UpgradeableClusterVersionOverrides"]);
    expect(c[0]!.message).toMatch(/multiple reasons: ClusterVersionOverridesSet,AdminAckRequired\n/);
  });
});
