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
  progressing: false,
  overrides: false,
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
        message: `Cluster operator machine-config should not be upgraded between minor versions: ${SKEW}`,
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
      `Cluster should not be upgraded between minor versions for multiple reasons: AdminAckRequired,ClusterBootImageSkewError\n* ${GATE_TEXT}\n* Cluster operator machine-config should not be upgraded between minor versions: ${SKEW}`,
    );
  });

  it("without an admin-gates ConfigMap to read, gates are not judged; a missing admin-acks is reported as the CVO does", () => {
    expect(cvoUpgradeable(inputs({ adminGates: null }))).toEqual([]);
    expect(cvoUpgradeable(inputs({ adminAcks: null }))).toEqual([
      { type: "Upgradeable", status: "False", reason: "UnableToAccessAdminAcksConfigMap", message: "admin-acks configmap not found." },
    ]);
  });

  it("overrides set are a check of their own, first in the CVO's order, in 4.21's words", () => {
    const c = cvoUpgradeable(inputs({ overrides: true }));
    expect(c.map((x) => x.type)).toEqual(["Upgradeable", "UpgradeableAdminAckRequired", "UpgradeableClusterVersionOverrides"]);
    expect(c[0]!.message).toMatch(
      /^Cluster should not be upgraded between minor versions for multiple reasons: ClusterVersionOverridesSet,AdminAckRequired\n/,
    );
    expect(c[2]!.message).toBe(
      "Disabling ownership via cluster version overrides prevents upgrades. Please remove overrides before requesting a minor version update.",
    );
  });

  it("a running update is a check of its own on 4.22, written True beside an Upgradeable=False", () => {
    const c = cvoUpgradeable(inputs({ current: "4.22.3", adminGates: {}, progressing: true }));
    expect(c).toEqual([
      {
        type: "Upgradeable",
        status: "False",
        reason: "UpdateInProgress",
        message: "An update is already in progress and the details are in the Progressing condition",
      },
    ]);
  });

  it("carries checks it does not compute (deletes in progress) among the reasons", () => {
    const deletes = {
      type: "UpgradeableDeletesInProgress",
      status: "False" as const,
      reason: "ResourceDeletesInProgress",
      message: "Cluster minor level upgrades are not allowed while resource deletions are in progress; resources=Deployment a/b",
    };
    const c = cvoUpgradeable(inputs({ carried: [deletes] }));
    expect(c.map((x) => x.type)).toEqual(["Upgradeable", "UpgradeableAdminAckRequired", "UpgradeableDeletesInProgress"]);
    expect(c[0]!.message).toMatch(/multiple reasons: AdminAckRequired,ResourceDeletesInProgress\n/);
  });
});

describe("the 4.23 CVO's Upgradeable from risks (pkg/cvo/status.go setUpgradeableCondition, pkg/risk/*)", () => {
  const gate423 = "ack-4.23-kube-1.36-api-removals-in-4.24";
  const at423 = (over: Partial<CvoInputs> = {}) => inputs({ current: "4.23.2", adminGates: { [gate423]: GATE_TEXT }, ...over });
  it("one operator: its message verbatim, and a reason that says the risk's name does not fit one", () => {
    const c = cvoUpgradeable(
      at423({
        adminAcks: { [gate423]: "true" },
        operators: [{ name: "machine-config", upgradeable: { status: "False", reason: "ClusterBootImageSkewError", message: SKEW } }],
      }),
    );
    expect(c).toEqual([{ type: "Upgradeable", status: "False", reason: "RiskNameNotCompatibleWithReasonProperty", message: SKEW }]);
  });

  it("several risks: MultipleReasons, one bullet each in source order (updating, overrides, admin acks, operators), no sub-conditions", () => {
    const c = cvoUpgradeable(
      at423({
        progressing: true,
        operators: [
          { name: "storage", upgradeable: { status: "False", reason: "X", message: "storage says no" } },
          { name: "machine-config", upgradeable: { status: "False", reason: "ClusterBootImageSkewError", message: SKEW } },
        ],
      }),
    );
    expect(c).toEqual([
      {
        type: "Upgradeable",
        status: "False",
        reason: "MultipleReasons",
        message: `Cluster should not be upgraded between minor or major versions for multiple reasons:\n* An update is already in progress and the details are in the Progressing condition.\n* ${GATE_TEXT}\n* ${SKEW}\n* storage says no`,
      },
    ]);
  });

  it("admin gates apply by major and minor: a 4.23 gate is not one of 5.23's", () => {
    expect(cvoUpgradeable(inputs({ current: "5.23.0", adminGates: { [gate423]: GATE_TEXT } }))).toEqual([]);
    expect(cvoUpgradeable(at423({ overrides: true, adminAcks: { [gate423]: "true" } }))[0]!.reason).toBe("ClusterVersionOverrides");
  });
});
