import { describe, expect, it } from "vitest";
import { evaluateReadiness, evaluateUpdateGates, type UpdateGateParts } from "../readiness";
import { cond, healthyCluster, healthyCvConditions, history, versionFacts } from "../testing/snapshots";
import { exclusionReason, type CandidateFacts } from "./eligibility";

/** The update gates' parts of a healthy cluster at `current`, with `more` ClusterVersion conditions. */
const gatesAt = (current: string, over: Partial<UpdateGateParts> = {}, conditions: ReturnType<typeof cond>[] = []): UpdateGateParts => ({
  version: { current, desired: current, updating: false, conditions: [...healthyCvConditions(current), ...conditions] },
  machineConfigOperator: [cond("Upgradeable", "True", "AsExpected")],
  adminGates: {},
  adminAcks: {},
  problems: [],
  ...over,
});

const facts = (over: Partial<CandidateFacts> = {}): CandidateFacts => ({
  name: "prod-east",
  labels: {},
  offline: false,
  stale: false,
  lastContactError: null,
  version: "4.19.10",
  readinessTarget: "4.20",
  readinessStatus: "pass",
  readinessBlocker: null,
  availableUpdates: ["4.19.11", "4.20.4"],
  conditionalUpdates: [{ version: "4.19.12", risks: [{ name: "AWSOldBootImages" }] }],
  gates: gatesAt(over.version ?? "4.19.10"),
  acknowledgementServed: true,
  activeRollout: null,
  ...over,
});
const upgrade = (target: string, acceptRisks: string[] = []) => ({ kind: "upgrade" as const, target, acceptRisks });

const notUpgradeable = cond(
  "Upgradeable",
  "False",
  "ClusterOperatorNotUpgradeable",
  "Cluster operator kube-apiserver should not be upgraded between minor versions: deprecated APIs in use",
);
const adminGate = "ack-4.19-kube-1.33-api-removals-in-4.20";
const gated = {
  adminGates: { [adminGate]: "Kubernetes 1.33 removes APIs; see https://access.redhat.com/articles/0000000" },
  adminAcks: {},
};

describe("who may enter a rollout", () => {
  it("lets in a cluster whose ClusterVersion lists the target", () => {
    expect(exclusionReason(facts(), upgrade("4.19.11"))).toBeNull();
  });

  it("refuses a conditional update unless the plan accepts each of its risks", () => {
    expect(exclusionReason(facts(), upgrade("4.19.12"))).toBe(
      "4.19.12 is only a conditional update for it, with risks the plan does not accept: AWSOldBootImages",
    );
    expect(exclusionReason(facts(), upgrade("4.19.12", ["AWSOldBootImages"]))).toBeNull();
  });

  it("gives the first reason in plain words", () => {
    expect(exclusionReason(facts(), upgrade("4.20.1"))).toMatch(/does not list 4\.20\.1 as an update/);
    expect(exclusionReason(facts({ activeRollout: "r-7" }), upgrade("4.19.11"))).toBe("already in rollout r-7, which has not ended");
    expect(exclusionReason(facts({ stale: true, lastContactError: "connection refused" }), upgrade("4.19.11"))).toMatch(
      /^not reachable now \(connection refused\)/,
    );
    expect(exclusionReason(facts({ offline: true }), { kind: "bundle", release: "4.19.11" })).toMatch(/^offline/);
    expect(exclusionReason(facts(), { kind: "bundle", release: "4.19.10" })).toBe("it already runs 4.19.10; the bundle carries 4.19.10");
    expect(exclusionReason(facts({ acknowledgementServed: false }), { kind: "acknowledgement" })).toMatch(/before 4\.20/);
  });
});

describe("an upgrade is judged for the plan's target, as the CVO takes it", () => {
  it("lets a z-stream update in with Upgradeable=False: it blocks only minor updates", () => {
    const blocked = facts({
      gates: gatesAt("4.19.10", {}, [notUpgradeable]),
      readinessStatus: "fail",
      readinessBlocker: "Upgradeable condition",
    });
    expect(exclusionReason(blocked, upgrade("4.19.11"))).toBeNull();
  });

  it("excludes a minor update with Upgradeable=False, in the CVO's words", () => {
    const blocked = facts({ gates: gatesAt("4.19.10", {}, [notUpgradeable]) });
    expect(exclusionReason(blocked, upgrade("4.20.4"))).toBe(
      "not ready for 4.20.4: Upgradeable condition: ClusterVersion reports Upgradeable=False, reason ClusterOperatorNotUpgradeable: " +
        '"Cluster operator kube-apiserver should not be upgraded between minor versions: deprecated APIs in use". ' +
        "Upgradeable=False blocks minor updates, so the update to 4.20.4 cannot start until it is True again.",
    );
    // The MCO's own Upgradeable=False (boot-image skew, a degraded pool) blocks it too.
    const mco = facts({
      gates: gatesAt("4.19.10", { machineConfigOperator: [cond("Upgradeable", "False", "DegradedPool", "pool worker")] }),
    });
    expect(exclusionReason(mco, upgrade("4.20.4"))).toMatch(
      /^not ready for 4\.20\.4: Upgradeable condition: ClusterOperator machine-config reports Upgradeable=False, reason DegradedPool/,
    );
  });

  it("excludes a minor update an admin gate of the current minor holds back, naming the gate; a z-stream passes it", () => {
    const unacked = facts({ gates: gatesAt("4.19.10", gated) });
    expect(exclusionReason(unacked, upgrade("4.20.4"))).toBe(
      `not ready for 4.20.4: Admin gates: 1 admin gate for 4.19 is not acknowledged: ${adminGate} (${gated.adminGates[adminGate]}). ` +
        "Until acknowledged, ClusterVersion reports Upgradeable=False (AdminAckRequired) and minor updates are blocked.",
    );
    expect(exclusionReason(unacked, upgrade("4.19.11"))).toBeNull();
    const acked = facts({ gates: gatesAt("4.19.10", { ...gated, adminAcks: { [adminGate]: "true" } }) });
    expect(exclusionReason(acked, upgrade("4.20.4"))).toBeNull();
    // The CVO's Upgradeable=False that the gate causes is named by the gate, not twice.
    const both = facts({ gates: gatesAt("4.19.10", gated, [cond("Upgradeable", "False", "AdminAckRequired", "Kubernetes 1.33 …")]) });
    expect(exclusionReason(both, upgrade("4.20.4"))).toMatch(/^not ready for 4\.20\.4: Admin gates: /);
  });

  it("refuses a skip of two minors or more, as the CVO's GiantHop does, however ready the cluster is", () => {
    const old = facts({ version: "4.15.4", readinessTarget: "4.16", availableUpdates: ["4.19.11"] });
    expect(exclusionReason(old, upgrade("4.19.11"))).toBe(
      "4.19.11 is 4 minor versions beyond 4.15.4, and OpenShift updates one minor version at a time: " +
        "the CVO refuses it (MultipleMinorVersionsUpdate). Update it through 4.16, 4.17, 4.18 first",
    );
    expect(exclusionReason(facts({ version: "4.17.30", availableUpdates: ["4.19.11"] }), upgrade("4.19.11"))).toMatch(
      /^4\.19\.11 is 2 minor versions beyond 4\.17\.30, .* through 4\.18 first$/,
    );
    // One minor is allowed.
    expect(
      exclusionReason(facts({ version: "4.18.27", readinessTarget: "4.19.12", availableUpdates: ["4.19.11"] }), upgrade("4.19.11")),
    ).toBeNull();
  });

  it("refuses EUS-to-EUS in one step: it is two updates, the control plane through the odd minor with the worker pools paused", () => {
    const eus = facts({ version: "4.16.30", readinessTarget: "4.17", availableUpdates: ["4.18.20"] });
    expect(exclusionReason(eus, upgrade("4.18.20"))).toBe(
      "4.18.20 is 2 minor versions beyond 4.16.30, and OpenShift updates one minor version at a time: " +
        "the CVO refuses it (MultipleMinorVersionsUpdate). Update it through 4.17 first; an EUS-to-EUS update from 4.16 " +
        "also goes through 4.17, with the worker pools paused so that only the control plane stops there",
    );
  });

  it("refuses a later major except 4 → 5.0, as upstream allows for now", () => {
    expect(exclusionReason(facts({ version: "4.22.3", availableUpdates: ["5.1.0"] }), upgrade("5.1.0"))).toMatch(/MajorVersionUpdate/);
    expect(exclusionReason(facts({ version: "4.22.3", availableUpdates: ["5.0.1"] }), upgrade("5.0.1"))).toBeNull();
    // A major update is a minor update for the gates.
    expect(
      exclusionReason(
        facts({ version: "4.22.3", availableUpdates: ["5.0.1"], gates: gatesAt("4.22.3", {}, [notUpgradeable]) }),
        upgrade("5.0.1"),
      ),
    ).toMatch(/^not ready for 5\.0\.1: Upgradeable condition/);
  });

  it("takes the fleet page's verdict when it was judged for the target's minor, and only then", () => {
    const blocked = { readinessStatus: "fail", readinessBlocker: "Boot-image skew" };
    expect(
      exclusionReason(
        facts({ version: "4.18.27", readinessTarget: "4.19.12", ...blocked, availableUpdates: ["4.19.11"] }),
        upgrade("4.19.11"),
      ),
    ).toBe("not ready for 4.19: Boot-image skew (as its readiness for 4.19.12 shows)");
    expect(exclusionReason(facts({ version: "4.19.10", readinessTarget: "4.20", ...blocked }), upgrade("4.20.4"))).toBe(
      "not ready for 4.20: Boot-image skew",
    );
    // Judged for the next minor, it says nothing about a z-stream update.
    expect(exclusionReason(facts({ version: "4.19.10", readinessTarget: "4.20", ...blocked }), upgrade("4.19.11"))).toBeNull();
  });

  it("judges the gates with the cluster page's own checks: the same verdicts and words for any target", () => {
    const snapshot = healthyCluster({
      version: versionFacts(history("4.19.10", "4.18.5"), { conditions: [...healthyCvConditions("4.19.10"), notUpgradeable] }),
      ...gated,
    });
    const parts: UpdateGateParts = {
      version: snapshot.version,
      machineConfigOperator: snapshot.machineConfigOperator,
      adminGates: snapshot.adminGates,
      adminAcks: snapshot.adminAcks,
      problems: snapshot.problems,
    };
    for (const target of ["4.19.11", "4.20.4", "4.21.1", "4.18.2"]) {
      const full = evaluateReadiness(snapshot, target);
      const gates = evaluateUpdateGates(parts, target);
      expect(gates.checks.length).toBe(8);
      expect(gates.checks).toEqual(full.checks.filter((c) => gates.checks.some((g) => g.id === c.id)));
      expect(gates.updateKind).toBe(full.updateKind);
    }
    expect(evaluateUpdateGates(parts, "4.20.4").blockers).toEqual(["cv-upgradeable", "admin-acks"]);
    expect(evaluateUpdateGates(parts, "4.19.11").blockers).toEqual([]);
  });
});
