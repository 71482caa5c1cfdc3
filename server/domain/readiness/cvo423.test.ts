import { describe, expect, it } from "vitest";
import { blockingCauses, evaluateReadiness, rollUpReadiness } from ".";
import type { ClusterSnapshot, ConditionalUpdate } from "../snapshot";
import { cond, healthyCluster, healthyCvConditions, history, PROD_EAST_422_MESSAGE, prodEast422, versionFacts } from "../testing/snapshots";
import { check, run } from "./testing";

/**
 * The CVO of 4.23 (release-4.23 at aad19c11058a; release-5.0 and main at 6e719331fb58 the same), read
 * as it writes its conditions: the cases are named after the CVO functions they follow.
 */

const SKEW = PROD_EAST_422_MESSAGE.replace("4.22/html", "4.23/html");
const STORAGE = "The vSphere CSI driver needs attention: several hosts run ESXi 7.0.2, below 7.0.3.";
const HEADER = "Cluster should not be upgraded between minor or major versions for multiple reasons:";

/** prod-east moved on to 4.23.2 with the boot images still at 4.12.7: the MCO blocks minor updates. */
function prodEast423(cvUpgradeable: { reason: string; message: string }, operators = true): ClusterSnapshot {
  const base = prodEast422();
  return {
    ...base,
    version: versionFacts(history("4.23.2", "4.22.3"), {
      conditions: [...healthyCvConditions("4.23.2"), cond("Upgradeable", "False", cvUpgradeable.reason, cvUpgradeable.message)],
    }),
    machineConfigOperator: operators ? [cond("Upgradeable", "False", "ClusterBootImageSkewError", SKEW), cond("Degraded", "False")] : [],
    bootImageRelease: "4.23.2",
  };
}

describe("setUpgradeableCondition (pkg/cvo/status.go, 4.23): Upgradeable read by its causes' words", () => {
  it("a cluster blocked by skew alone: RiskNameNotCompatibleWithReasonProperty still names boot-image skew as the cause", () => {
    const s = prodEast423({ reason: "RiskNameNotCompatibleWithReasonProperty", message: SKEW });
    const r = evaluateReadiness(s, "4.24");
    expect(r.blockers).toEqual(expect.arrayContaining(["cv-upgradeable", "boot-image-skew"]));
    expect(check(r, "cv-upgradeable").causedBy).toEqual(["boot-image-skew"]);
    expect(blockingCauses(r).map((c) => c.id)).toEqual(["boot-image-skew"]);
    expect(check(r, "cv-upgradeable").detail).toContain("the 4.23 CVO (release-4.23 at aad19c11058a)");
  });

  it("skew and a second operator: MultipleReasons keeps both causes, in the CVO's words, and the roll-up counts both", () => {
    const s = prodEast423({ reason: "MultipleReasons", message: `${HEADER}\n* ${SKEW}\n* ${STORAGE}` });
    const r = evaluateReadiness(s, "4.24");
    const c = check(r, "cv-upgradeable");
    expect(c.causedBy).toBeUndefined();
    expect(c.detail).toContain("it has 2 causes: (1)");
    expect(c.detail).not.toContain(HEADER);
    expect(c.detail).toContain(`"${STORAGE}"`);
    expect(c.detail).toContain("[see Boot-image skew]");
    expect(blockingCauses(r).map((x) => x.id)).toEqual(["cv-upgradeable", "boot-image-skew"]);
    const roll = rollUpReadiness([
      { cluster: "a", readiness: r },
      {
        cluster: "b",
        readiness: evaluateReadiness(prodEast423({ reason: "RiskNameNotCompatibleWithReasonProperty", message: SKEW }), "4.24"),
      },
    ]);
    expect(roll.mostCommonBlocker).toMatchObject({ id: "boot-image-skew", clusters: 2 });
    expect(roll.blockers.map((b) => [b.id, b.clusters])).toEqual([
      ["boot-image-skew", 2],
      ["cv-upgradeable", 1],
    ]);
  });

  it("an admin gate's description is recognised as the admin-acks cause", () => {
    const gate = "ack-4.23-kube-1.36-api-removals-in-4.24";
    const text = "Kubernetes 1.36 and therefore OpenShift 4.24 remove several APIs which require admin consideration.";
    const s: ClusterSnapshot = {
      ...prodEast423({ reason: "MultipleReasons", message: `${HEADER}\n* ${text}\n* ${SKEW}` }),
      adminGates: { [gate]: text },
      adminAcks: {},
    };
    const r = evaluateReadiness(s, "4.24");
    expect(check(r, "cv-upgradeable").causedBy?.sort()).toEqual(["admin-acks", "boot-image-skew"]);
    expect(
      blockingCauses(r)
        .map((x) => x.id)
        .sort(),
    ).toEqual(["admin-acks", "boot-image-skew"]);
  });

  it("the 4.22 words keep working: one operator folded with its own reason", () => {
    const r = evaluateReadiness(prodEast422(), "4.23");
    expect(blockingCauses(r).map((x) => x.id)).toEqual(["boot-image-skew"]);
  });
});

describe("gateApplicableToCurrentVersion (pkg/risk/adminack, 4.23): major and minor both match", () => {
  const at = (current: string, gate: string) =>
    healthyCluster({
      version: versionFacts(history(current)),
      adminGates: { [gate]: "Read the API removals." },
      adminAcks: {},
    });
  it("a 4.23 gate applies at 4.23 and not at 5.23; the 4.22 CVO compared only the minor", () => {
    expect(run(at("4.23.1", "ack-4.23-kube-1.36-api-removals-in-4.24"), "4.24", "admin-acks").status).toBe("fail");
    expect(run(at("5.23.1", "ack-4.23-kube-1.36-api-removals-in-4.24"), "5.24", "admin-acks").status).toBe("pass");
    expect(run(at("4.22.1", "ack-5.22-x-in-4.23"), "4.23", "admin-acks").status).toBe("fail");
  });
});

describe("GiantHop.Run (pkg/payload/precondition/clusterversion/gianthop.go)", () => {
  const at = (current: string) => healthyCluster({ version: versionFacts(history(current)) });
  it("4.y → 5.0 is a major update the CVO takes; 4.y → 5.1 is refused with MajorVersionUpdate in its words", () => {
    expect(run(at("4.22.3"), "5.0.1", "target-version")).toMatchObject({ status: "pass" });
    const refused = run(at("4.22.3"), "5.1.0", "target-version");
    expect(refused.status).toBe("fail");
    expect(refused.detail).toContain(
      '"5.1.0 has a larger major version than the current target 4.22.3 (5 > 4), and only updates within the current major version or to 5.0 are supported."',
    );
  });
});

describe("evaluateConditionalUpdate (pkg/cvo/availableupdates.go): accepted risks as the CVO applies them", () => {
  const risk = (name: string, applies: "True" | "False" | "Unknown", more: object = {}) => ({
    name,
    message: `${name} may hurt.`,
    url: `https://issues.redhat.com/browse/${name}`,
    applies,
    ...more,
  });
  const cluster = (update: Partial<ConditionalUpdate>, acceptRisks: string[] | null, more: Partial<ClusterSnapshot> = {}) =>
    healthyCluster({
      version: {
        ...versionFacts(history("4.22.5"), { conditionalUpdates: [{ version: "4.23.1", recommended: "False", risks: [], ...update }] }),
        acceptRisks,
      },
      ...more,
    });

  it("accepting a risk whose exposure is Unknown does not clear it (EvaluationFailed)", () => {
    const c = run(cluster({ risks: [risk("R1", "Unknown")] }, ["R1"]), "4.23.1", "conditional-update-risks");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("accepted, which does not clear a risk whose exposure is unknown");
  });

  it("on HyperShift the CVO ignores acceptRisks and says the spec is invalid", () => {
    const c = run(cluster({ risks: [risk("R1", "True")] }, ["R1"], { topology: "External" }), "4.23.1", "conditional-update-risks");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("acceptRisks must not be specified");
    expect(run(cluster({ risks: [risk("R1", "True")] }, ["R1"]), "4.23.1", "conditional-update-risks").status).toBe("pass");
  });

  it("shows the CVO's own Recommended verdict, and takes Recommended=True as cleared", () => {
    const words = { recommendedReason: "R1", recommendedMessage: "R1 may hurt. https://issues.redhat.com/browse/R1" };
    const held = run(cluster({ risks: [risk("R1", "True")], ...words }, null), "4.23.1", "conditional-update-risks");
    expect(held.detail).toContain('The CVO says: 4.23.1: Recommended=False (R1) "R1 may hurt. https://issues.redhat.com/browse/R1"');
    const ok = run(
      cluster({ recommended: "True", recommendedReason: "AllExposedRisksAccepted", risks: [risk("R1", "True")] }, null),
      "4.23.1",
      "conditional-update-risks",
    );
    expect(ok.status).toBe("pass");
  });

  it("never clears an update on a risk list that was cut", () => {
    const c = run(cluster({ risks: [risk("R1", "False")], risksCut: true }, null), "4.23.1", "conditional-update-risks");
    expect(c.status).toBe("warn");
  });

  it("a firing alert the CVO made a risk of is left to the alert checks, not counted twice", () => {
    const alert = risk("KubeNodeNotReady", "True", { appliesReason: "Alert:firing" });
    const alerts = {
      firing: [
        {
          name: "KubeNodeNotReady",
          severity: "warning",
          state: "firing",
          updatePrecheck: false,
          namespace: null,
          podDisruptionBudget: null,
          summary: "Node is not ready.",
          description: null,
        },
      ],
      relevant: 1,
    };
    const s = cluster({ risks: [alert] }, null, { alerts } as Partial<ClusterSnapshot>);
    const r = evaluateReadiness(s, "4.23.1");
    expect(check(r, "alerts-node").status).toBe("warn");
    const c = check(r, "conditional-update-risks");
    expect(c.status).toBe("pass");
    expect(c.detail).toContain("1 firing alert it counts as risks (KubeNodeNotReady), which the alert checks show");
    // Without the alerts read, the risk is the only place the alert shows: it warns there.
    expect(run(cluster({ risks: [alert] }, null, { alerts: null }), "4.23.1", "conditional-update-risks").status).toBe("warn");
  });
});
