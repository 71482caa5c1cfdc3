import { describe, expect, it } from "vitest";
import { blockingCauses, defaultTarget, evaluateReadiness, rollUpReadiness, worstStatus, type CheckStatus } from ".";
import {
  cond,
  healthyCluster,
  undecoded,
  history,
  pool,
  prodEast,
  prodEast422,
  prodEast422Acknowledged,
  versionFacts,
} from "../testing/snapshots";
import { check, run, cvPlus, STABLE_IDS } from "./testing";

describe("defaultTarget: the next minor, recommended first", () => {
  it.each([
    { rule: "nothing listed for the next minor → the minor alone", s: prodEast(), target: "4.20" },
    {
      rule: "highest recommended release of the next minor, compared as versions",
      s: healthyCluster({ version: versionFacts(history("4.19.10"), { availableUpdates: ["4.19.12", "4.20.3", "4.20.10", "4.21.1"] }) }),
      target: "4.20.10",
    },
    {
      rule: "only a conditional update of the next minor → that one",
      s: healthyCluster({
        version: versionFacts(history("4.19.10"), { conditionalUpdates: [{ version: "4.20.5", recommended: "False", risks: [] }] }),
      }),
      target: "4.20.5",
    },
    {
      rule: "a recommended release wins over a higher conditional one",
      s: healthyCluster({
        version: versionFacts(history("4.19.10"), {
          availableUpdates: ["4.20.3"],
          conditionalUpdates: [{ version: "4.20.8", recommended: "False", risks: [] }],
        }),
      }),
      target: "4.20.3",
    },
    {
      rule: "a final release before a release candidate of the same version",
      s: healthyCluster({ version: versionFacts(history("4.19.10"), { availableUpdates: ["4.20.0-rc.3", "4.20.0"] }) }),
      target: "4.20.0",
    },
    { rule: "no ClusterVersion → none", s: healthyCluster({ version: null }), target: null },
    { rule: "unparseable current version → none", s: healthyCluster({ version: versionFacts(history("unknown")) }), target: null },
  ])("$rule", ({ s, target }) => {
    expect(defaultTarget(s)).toBe(target);
  });
});

describe("update kind", () => {
  const at4223 = prodEast422();
  it.each([
    { target: "4.22.5", kind: "z-stream", rule: "same minor, later patch" },
    { target: "4.22", kind: "z-stream", rule: "a minor-only target of the current minor means a z-stream in it" },
    { target: "4.22.3", kind: "same", rule: "the current release" },
    { target: "4.22.1", kind: "downgrade", rule: "earlier patch" },
    { target: "4.21.9", kind: "downgrade", rule: "earlier minor" },
    { target: "4.23", kind: "minor", rule: "a minor-only target (4.23) is accepted" },
    { target: "4.23.1", kind: "minor", rule: "next minor release" },
    { target: "4.24.0", kind: "multi-minor", rule: "two minors on" },
    { target: "5.0", kind: "minor", rule: "a later major takes the minor-update gates" },
    { target: "banana", kind: "invalid", rule: "not a version" },
    { target: "", kind: "invalid", rule: "empty" },
    { target: "4.23.x", kind: "invalid", rule: "trailing garbage" },
  ])("$target → $kind ($rule)", ({ target, kind }) => {
    expect(evaluateReadiness(at4223, target).updateKind).toBe(kind);
  });

  it("is invalid when the current version is unknown, and says so", () => {
    const r = evaluateReadiness(healthyCluster({ version: null }), "4.23");
    expect(r).toMatchObject({ updateKind: "invalid", current: null });
    expect(check(r, "target-version").status).toBe("unknown");
  });
});

describe("overall status and shape", () => {
  it.each<[CheckStatus[], CheckStatus]>([
    [["pass", "unknown", "warn", "fail"], "fail"],
    [["pass", "unknown", "warn"], "warn"],
    [["pass", "unknown"], "unknown"],
    [["pass"], "pass"],
    [[], "pass"],
  ])("worst of %j is %s (fail > warn > unknown > pass)", (statuses, worst) => {
    expect(worstStatus(statuses)).toBe(worst);
  });

  it("a healthy cluster to a recommended z-stream passes every check", () => {
    const r = evaluateReadiness(healthyCluster(), "4.19.11");
    expect(r.checks.filter((c) => c.status !== "pass").map((c) => [c.id, c.detail])).toEqual([]);
    expect(r).toMatchObject({ status: "pass", blockers: [], current: "4.19.10", target: "4.19.11", updateKind: "z-stream" });
  });

  it.each([
    ["prod-east → 4.22.3", prodEast(), "4.22.3"],
    ["prod-east at 4.22.3 → 4.23", prodEast422(), "4.23"],
    ["acknowledged → 4.23", prodEast422Acknowledged(), "4.23"],
    ["healthy → 4.20", healthyCluster(), "4.20"],
    ["no data → 4.23", undecoded({}), "4.23"],
  ])("%s: stable ids in order, remediation only when not passing, blockers = failing ids, status = worst", (_, s, target) => {
    const r = evaluateReadiness(s, target);
    expect(r.checks.map((c) => c.id)).toEqual(STABLE_IDS);
    for (const c of r.checks) {
      expect(c.title.length).toBeGreaterThan(0);
      expect(c.detail.length).toBeGreaterThan(0);
      if (c.status === "pass") expect(c.remediation).toBeNull();
      if (c.status === "fail" || c.status === "warn") expect(c.remediation).toBeTruthy();
    }
    expect(r.blockers).toEqual(r.checks.filter((c) => c.status === "fail").map((c) => c.id));
    expect(r.status).toBe(worstStatus(r.checks.map((c) => c.status)));
  });
});

describe("totality: missing or malformed data gives unknown with a reason, never a throw", () => {
  it("ClusterVersion not readable → its checks are unknown with the read problem", () => {
    const s = healthyCluster({
      version: null,
      problems: [{ part: "ClusterVersion", kind: "error", message: "clusterversions.config.openshift.io is forbidden" }],
    });
    const r = evaluateReadiness(s, "4.20");
    for (const id of ["cv-upgradeable", "cv-failing", "cv-progressing", "cv-retrieved-updates", "cv-release-accepted", "boot-image-skew"]) {
      expect(check(r, id).status).toBe("unknown");
    }
    expect(check(r, "cv-upgradeable").detail).toContain("forbidden");
  });

  it("an empty object, nulls where lists belong and a non-string target do not throw", () => {
    const broken = undecoded({
      ...healthyCluster(),
      pools: null,
      nodes: [{ name: "n", pinned: null }],
      machineSets: [{}],
      problems: null,
      imageMode: undefined,
    });
    // evaluateReadiness catches a check that throws, so "does not throw" would prove nothing: every check must
    // answer for itself, with a status and a reason, without falling back on the catch-all.
    for (const [s, target] of [
      [broken, "4.20"],
      [undecoded({}), 42 as unknown as string],
      [undecoded(null), "4.23"],
    ] as const) {
      const r = evaluateReadiness(s, target);
      expect(r.checks.map((c) => c.id)).toEqual(STABLE_IDS);
      expect(r.checks.filter((c) => c.detail.startsWith("This check could not be evaluated")).map((c) => c.id)).toEqual([]);
      for (const c of r.checks) expect(c.detail.length, c.id).toBeGreaterThan(10);
      expect(r.status).not.toBe("pass");
    }
  });
});

describe("rollUpReadiness", () => {
  it("counts clusters per overall status (no readiness counts as unknown) and names the most common failing check", () => {
    const items = [
      { cluster: "prod-east", readiness: evaluateReadiness(prodEast422(), "4.23") },
      { cluster: "prod-west", readiness: evaluateReadiness(prodEast422(), "4.23") },
      { cluster: "lab", readiness: evaluateReadiness(healthyCluster({ pools: [pool("master", { paused: true })] }), "4.20") },
      { cluster: "acked", readiness: evaluateReadiness(prodEast422Acknowledged(), "4.23") },
      { cluster: "fine", readiness: evaluateReadiness(healthyCluster(), "4.19.11") },
      { cluster: "unreachable", readiness: null },
    ];
    const roll = rollUpReadiness(items);
    expect(roll.counts).toEqual({ fail: 3, warn: 1, pass: 1, unknown: 1 });
    // Upgradeable=False on the two skewed clusters is the skew itself, so the skew is what is named.
    expect(roll.mostCommonBlocker).toEqual({ id: "boot-image-skew", title: "Boot-image skew", clusters: 2 });
  });

  it("an Upgradeable=False for several reasons points at each cause the CVO lists", () => {
    const c = run(
      cvPlus(
        cond("Upgradeable", "False", "MultipleReasons", "Cluster should not be upgraded between minor versions for multiple reasons: …"),
        cond(
          "UpgradeableAdminAckRequired",
          "False",
          "AdminAckRequired",
          "Kubernetes 1.33 and therefore OpenShift 4.20 remove several APIs",
        ),
        cond(
          "UpgradeableClusterOperators",
          "False",
          "ClusterBootImageSkewError",
          "Cluster operator machine-config should not be upgraded between minor or major versions: …",
        ),
      ),
      "4.20",
      "cv-upgradeable",
    );
    expect(c.status).toBe("fail");
    expect(c.remediation).toContain("Acknowledge the admin gates");
    expect(c.remediation).toContain("Resolve the boot-image skew");
  });

  it("names the cause, not the Upgradeable condition that reports it, unless nothing else fails", () => {
    const skewed = evaluateReadiness(prodEast422(), "4.23");
    expect(skewed.blockers).toEqual(expect.arrayContaining(["cv-upgradeable", "boot-image-skew"]));
    expect(blockingCauses(skewed).map((c) => c.id)).toEqual(["boot-image-skew"]);
    const onlyUpgradeable = evaluateReadiness(
      cvPlus(cond("Upgradeable", "False", "ClusterOperatorsNotUpgradeable", "Cluster operator foo should not be upgraded")),
      "4.20",
    );
    expect(onlyUpgradeable.blockers).toEqual(["cv-upgradeable"]);
    expect(blockingCauses(onlyUpgradeable).map((c) => c.id)).toEqual(["cv-upgradeable"]);
    // A cause of its own (another operator) beside an unrelated failure: both are named.
    const ownCauseAndPaused = evaluateReadiness(
      {
        ...cvPlus(cond("Upgradeable", "False", "ClusterOperatorsNotUpgradeable", "Cluster operator foo should not be upgraded")),
        pools: [pool("master", { paused: true }), pool("worker")],
      },
      "4.20",
    );
    expect(blockingCauses(ownCauseAndPaused).map((c) => c.id)).toEqual(["cv-upgradeable", "pools-paused"]);
    expect(ownCauseAndPaused.checks.find((c) => c.id === "cv-upgradeable")!.remediation).toContain(
      "Resolve the reason given in the message",
    );
    expect(blockingCauses(evaluateReadiness(healthyCluster(), "4.19.11"))).toEqual([]);
    expect(blockingCauses(null)).toEqual([]);
  });

  it("has no most common blocker when nothing fails, and handles an empty fleet", () => {
    expect(rollUpReadiness([{ cluster: "fine", readiness: evaluateReadiness(healthyCluster(), "4.19.11") }]).mostCommonBlocker).toBeNull();
    expect(rollUpReadiness([])).toEqual({ counts: { pass: 0, warn: 0, fail: 0, unknown: 0 }, mostCommonBlocker: null, blockers: [] });
  });

  it("the single most frequent failing check wins regardless of order", () => {
    const paused = evaluateReadiness(healthyCluster({ pools: [pool("master", { paused: true })] }), "4.20");
    const roll = rollUpReadiness([
      { cluster: "a", readiness: paused },
      { cluster: "b", readiness: evaluateReadiness(prodEast422(), "4.23") },
      { cluster: "c", readiness: paused },
      { cluster: "d", readiness: paused },
    ]);
    expect(roll.mostCommonBlocker).toEqual({ id: "pools-paused", title: "Paused pools", clusters: 3 });
  });
});
