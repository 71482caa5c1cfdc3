import { describe, expect, it } from "vitest";
import { RELEASE_LABEL } from "./bundleManifest";
import {
  blockingCauses,
  defaultTarget,
  evaluateReadiness,
  rollUpReadiness,
  worstStatus,
  type CheckStatus,
  type Readiness,
} from "./readiness";
import type { ClusterSnapshot, Condition } from "./snapshot";
import {
  cond,
  healthyCluster,
  healthyCvConditions,
  history,
  machineSet,
  node,
  pool,
  PROD_EAST_422_MESSAGE,
  prodEast,
  prodEast422,
  prodEast422Acknowledged,
  versionFacts,
} from "./testing/snapshots";

const check = (r: Readiness, id: string) => {
  const found = r.checks.find((c) => c.id === id);
  if (!found) throw new Error(`no check ${id}`);
  return found;
};
const run = (s: ClusterSnapshot, target: string, id: string) => check(evaluateReadiness(s, target), id);

/** A healthy 4.19.10 cluster whose ClusterVersion conditions are replaced or extended. */
const withCv = (conditions: Condition[], more: Parameters<typeof versionFacts>[1] = {}) =>
  healthyCluster({ version: versionFacts(history("4.19.10"), { ...more, conditions }) });
const cvPlus = (...extra: Condition[]) =>
  withCv([...healthyCvConditions("4.19.10").filter((c) => !extra.some((e) => e.type === c.type)), ...extra]);

const STABLE_IDS = [
  "target-version",
  "cv-upgradeable",
  "cv-failing",
  "cv-invalid",
  "cv-progressing",
  "cv-retrieved-updates",
  "cv-release-accepted",
  "admin-acks",
  "pools-degraded",
  "pools-paused",
  "pools-updating",
  "image-mode-builds",
  "boot-image-skew",
  "machinesets-skipped",
  "pinned-images",
  "conditional-update-risks",
  "rhel-major-change",
  "single-node",
  "bare-metal",
];

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

describe("target-version", () => {
  it.each([
    { rule: "an invalid target fails", target: "latest", status: "fail" },
    { rule: "a downgrade fails (not supported)", target: "4.18.3", status: "fail" },
    { rule: "the same release passes (nothing to do)", target: "4.19.10", status: "pass" },
    { rule: "a minor update passes", target: "4.20.1", status: "pass" },
    { rule: "a multi-minor update warns: one minor at a time", target: "4.22.3", status: "warn" },
  ])("$rule", ({ target, status }) => {
    expect(run(prodEast(), target, "target-version").status).toBe(status);
  });

  it("a target far beyond any release is answered without walking every minor in between", () => {
    const r = evaluateReadiness(prodEast(), "4.999");
    expect(check(r, "target-version").detail.length).toBeLessThan(1000);
    expect(r.checks.map((c) => c.id)).toContain("boot-image-skew");
  });

  it("names the intermediate minors of a multi-minor update", () => {
    expect(run(prodEast(), "4.22.3", "target-version").detail).toContain("through 4.20, 4.21");
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
    ["no data → 4.23", {} as ClusterSnapshot, "4.23"],
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
    const broken = {
      ...healthyCluster(),
      pools: null,
      nodes: [{ name: "n", pinned: null }],
      machineSets: [{}],
      problems: null,
      imageMode: undefined,
    } as unknown as ClusterSnapshot;
    expect(() => evaluateReadiness(broken, "4.20")).not.toThrow();
    expect(() => evaluateReadiness({} as ClusterSnapshot, 42 as unknown as string)).not.toThrow();
    expect(() => evaluateReadiness(null as unknown as ClusterSnapshot, "4.23")).not.toThrow();
    expect(evaluateReadiness(null as unknown as ClusterSnapshot, "4.23").status).not.toBe("pass");
  });
});

describe("cv-upgradeable: Upgradeable=False blocks minor updates, not z-stream ones (reference §2.4, anchors §4.1)", () => {
  const ackRequired = cond("Upgradeable", "False", "AdminAckRequired", "Kubernetes 1.33 removes APIs.");
  it.each([
    {
      rule: "a missing Upgradeable condition means True",
      s: healthyCluster(),
      target: "4.20",
      status: "pass",
      detail: /no Upgradeable=False/,
    },
    { rule: "Upgradeable=True passes", s: cvPlus(cond("Upgradeable", "True")), target: "4.20", status: "pass", detail: /True/ },
    {
      rule: "ClusterVersion Upgradeable=False fails a minor update, with reason and message",
      s: cvPlus(ackRequired),
      target: "4.20",
      status: "fail",
      detail: /AdminAckRequired: "Kubernetes 1\.33 removes APIs\."/,
    },
    { rule: "…and a multi-minor update", s: cvPlus(ackRequired), target: "4.22", status: "fail", detail: /cannot start/ },
    {
      rule: "…but passes a z-stream update, saying why",
      s: cvPlus(ackRequired),
      target: "4.19.11",
      status: "pass",
      detail: /blocks only minor \(y-stream\) updates, so the z-stream update to 4\.19\.11 is not blocked/,
    },
    {
      rule: "ClusterOperator machine-config Upgradeable=False counts before the CVO folds it in",
      s: healthyCluster({
        machineConfigOperator: [cond("Upgradeable", "False", "DegradedPool", "One or more machine config pools are degraded")],
      }),
      target: "4.20",
      status: "fail",
      detail: /ClusterOperator machine-config reports Upgradeable=False, reason DegradedPool/,
    },
    {
      rule: "Upgradeable=Unknown is unknown",
      s: cvPlus(cond("Upgradeable", "Unknown", "NoData")),
      target: "4.20",
      status: "unknown",
      detail: /Unknown/,
    },
  ])("$rule", ({ s, target, status, detail }) => {
    const c = run(s, target, "cv-upgradeable");
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });

  it("cites the conditions as evidence and says the folded message once", () => {
    const c = run(prodEast422(), "4.23", "cv-upgradeable");
    expect(c.evidence).toEqual([
      { kind: "ClusterVersion", name: "version", field: "status.conditions[Upgradeable]" },
      { kind: "ClusterOperator", name: "machine-config", field: "status.conditions[Upgradeable]" },
    ]);
    expect(c.detail.split(PROD_EAST_422_MESSAGE)).toHaveLength(2);
    expect(c.remediation).toMatch(/boot-image skew/);
  });
});

describe("other ClusterVersion conditions (reference §7, anchors §4.1)", () => {
  it.each([
    {
      rule: "Failing=True fails",
      id: "cv-failing",
      s: cvPlus(cond("Failing", "True", "ClusterOperatorDegraded", "Cluster operator etcd is degraded")),
      status: "fail",
    },
    { rule: "Failing=False passes", id: "cv-failing", s: healthyCluster(), status: "pass" },
    { rule: "no Failing condition is unknown", id: "cv-failing", s: withCv([cond("Progressing", "False")]), status: "unknown" },
    {
      rule: "Invalid=True fails",
      id: "cv-invalid",
      s: cvPlus(cond("Invalid", "True", "InvalidDesiredUpdate", "version and image both set")),
      status: "fail",
    },
    { rule: "no Invalid condition passes (it only appears when invalid)", id: "cv-invalid", s: healthyCluster(), status: "pass" },
    {
      rule: "Progressing=True warns: an update is running",
      id: "cv-progressing",
      s: cvPlus(cond("Progressing", "True", null, "Working towards 4.19.11: 512 of 880 done (58% complete)")),
      status: "warn",
    },
    {
      rule: "a desiredUpdate different from the current version warns",
      id: "cv-progressing",
      s: healthyCluster({ version: { ...versionFacts(history("4.19.10")), updating: true, desired: "4.19.11" } }),
      status: "warn",
    },
    {
      rule: "RetrievedUpdates=False warns (update service not reached)",
      id: "cv-retrieved-updates",
      s: cvPlus(cond("RetrievedUpdates", "False", "NoUpstream", "No upstream server has been set")),
      status: "warn",
    },
    {
      rule: "no RetrievedUpdates condition is unknown",
      id: "cv-retrieved-updates",
      s: withCv([cond("Failing", "False")]),
      status: "unknown",
    },
    {
      rule: "ReleaseAccepted=False fails (signature, pull, precondition)",
      id: "cv-release-accepted",
      s: cvPlus(cond("ReleaseAccepted", "False", "RetrievePayload", "signature verification failed")),
      status: "fail",
    },
    { rule: "ReleaseAccepted=True passes", id: "cv-release-accepted", s: healthyCluster(), status: "pass" },
  ])("$rule", ({ id, s, status }) => {
    expect(run(s, "4.20", id).status).toBe(status);
  });

  it("quotes the condition's message", () => {
    expect(run(cvPlus(cond("Failing", "True", "X", "Cluster operator etcd is degraded")), "4.20", "cv-failing").detail).toContain(
      '"Cluster operator etcd is degraded"',
    );
  });
});

describe("admin-acks: admin-gates (openshift-config-managed) vs admin-acks (openshift-config), as the CVO checks them", () => {
  const GATE = "ack-4.19-kube-1.33-api-removals-in-4.20";
  const DESCRIPTION = "Kubernetes 1.33 and therefore OpenShift 4.20 remove several APIs which require admin consideration.";
  const gated = (acks: Record<string, string> | null, gates: Record<string, string> | null = { [GATE]: DESCRIPTION }) =>
    healthyCluster({ adminGates: gates, adminAcks: acks });
  it.each([
    { rule: "a gate for the current minor, not acknowledged, fails a minor update", s: gated({}), target: "4.20", status: "fail" },
    { rule: 'acknowledged with data[key] = "true" passes', s: gated({ [GATE]: "true" }), target: "4.20", status: "pass" },
    { rule: 'only the exact string "true" acknowledges', s: gated({ [GATE]: "True" }), target: "4.20", status: "fail" },
    { rule: "gates block minor updates only: a z-stream passes", s: gated({}), target: "4.19.11", status: "pass" },
    {
      rule: "a gate for another minor does not apply",
      s: gated({}, { "ack-4.18-kube-1.32-api-removals-in-4.19": "old" }),
      target: "4.20",
      status: "pass",
    },
    { rule: "no gates at all passes", s: gated({}, {}), target: "4.20", status: "pass" },
    {
      rule: "a key the CVO rejects fails (AdminAckConfigMapGateNameError)",
      s: gated({}, { "acknowledge-this": "x" }),
      target: "4.20",
      status: "fail",
    },
    {
      rule: "an applicable gate without a description fails (AdminAckConfigMapGateValueError)",
      s: gated({}, { [GATE]: "" }),
      target: "4.20",
      status: "fail",
    },
    { rule: "admin-gates unreadable is unknown", s: gated({}, null), target: "4.20", status: "unknown" },
    { rule: "admin-acks unreadable while a gate applies is unknown", s: gated(null), target: "4.20", status: "unknown" },
    { rule: "admin-acks unreadable but no gate applies passes", s: gated(null, {}), target: "4.20", status: "pass" },
  ])("$rule", ({ s, target, status }) => {
    expect(run(s, target, "admin-acks").status).toBe(status);
  });

  it("names the gate, its description, the ConfigMaps and the patch to apply", () => {
    const c = run(gated({}), "4.20", "admin-acks");
    expect(c.detail).toContain(GATE);
    expect(c.detail).toContain(DESCRIPTION);
    expect(c.evidence).toEqual([
      { kind: "ConfigMap", name: "admin-gates", namespace: "openshift-config-managed", field: `data[${GATE}]` },
      { kind: "ConfigMap", name: "admin-acks", namespace: "openshift-config", field: `data[${GATE}]` },
    ]);
    expect(c.remediation).toContain(`oc -n openshift-config patch cm admin-acks --type=merge -p '{"data":{"${GATE}":"true"}}'`);
  });
});

describe("pools (reference §5.1, anchors §4.6)", () => {
  const degradedWorker = pool("worker", {
    degraded: true,
    degradedMachineCount: 1,
    degradedMessage: 'Node w1 is reporting: "unexpected on-disk state"',
  });
  it.each([
    {
      rule: "a degraded pool fails, with its message",
      id: "pools-degraded",
      pools: [pool("master"), degradedWorker],
      status: "fail",
      detail: /unexpected on-disk state/,
    },
    {
      rule: "an interrupted build fails",
      id: "pools-degraded",
      pools: [pool("master"), pool("infra", { buildInterrupted: true })],
      status: "fail",
      detail: /BuildInterrupted/,
    },
    {
      rule: "healthy pools pass",
      id: "pools-degraded",
      pools: [pool("master"), pool("worker")],
      status: "pass",
      detail: /None of the 2 pools/,
    },
    {
      rule: "a paused worker pool warns: its nodes do not update",
      id: "pools-paused",
      pools: [pool("master"), pool("worker", { paused: true })],
      status: "warn",
      detail: /worker/,
    },
    {
      rule: "a paused master pool fails: the MCO waits for it, the update stalls",
      id: "pools-paused",
      pools: [pool("master", { paused: true }), pool("worker", { paused: true })],
      status: "fail",
      detail: /master pool is paused, and so is worker/,
    },
    {
      rule: "an updating pool warns",
      id: "pools-updating",
      pools: [pool("master"), pool("worker", { updating: true, updatedMachineCount: 1 })],
      status: "warn",
      detail: /1 of 3 nodes/,
    },
    {
      rule: "a paused pool that reports Updating is left to the paused check",
      id: "pools-updating",
      pools: [pool("master"), pool("worker", { updating: true, paused: true })],
      status: "pass",
      detail: /up to date/,
    },
  ])("$rule", ({ id, pools, status, detail }) => {
    const c = run(healthyCluster({ pools }), "4.20", id);
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });

  it("pool checks apply to z-stream updates too", () => {
    expect(run(healthyCluster({ pools: [pool("master"), degradedWorker] }), "4.19.11", "pools-degraded").status).toBe("fail");
  });

  it("unreadable pools are unknown; a partial read does not pass", () => {
    const none = healthyCluster({ pools: [], problems: [{ part: "MachineConfigPools", kind: "error", message: "timeout" }] });
    expect(run(none, "4.20", "pools-degraded")).toMatchObject({ status: "unknown", detail: expect.stringContaining("timeout") });
    const partial = healthyCluster({ problems: [{ part: "MachineConfigPools", kind: "error", message: "infra skipped: bad status" }] });
    expect(run(partial, "4.20", "pools-degraded").status).toBe("unknown");
    expect(run(partial, "4.20", "pools-paused").status).toBe("unknown");
  });

  it("cites the pool's field", () => {
    expect(run(healthyCluster({ pools: [pool("master", { paused: true })] }), "4.20", "pools-paused").evidence).toEqual([
      { kind: "MachineConfigPool", name: "master", field: "spec.paused" },
    ]);
  });
});

describe("image-mode-builds (reference §8)", () => {
  it.each([
    { rule: "no image-mode pool passes", imageMode: [], status: "pass" },
    {
      rule: "a succeeded build passes",
      imageMode: [{ pool: "infra", build: "infra-1", buildState: "succeeded" as const }],
      status: "pass",
    },
    { rule: "a failed build fails", imageMode: [{ pool: "infra", build: "infra-1", buildState: "failed" as const }], status: "fail" },
    {
      rule: "an interrupted build fails",
      imageMode: [{ pool: "infra", build: "infra-1", buildState: "interrupted" as const }],
      status: "fail",
    },
    { rule: "a running build warns", imageMode: [{ pool: "infra", build: "infra-1", buildState: "building" as const }], status: "warn" },
  ])("$rule", ({ imageMode, status }) => {
    expect(run(healthyCluster({ imageMode }), "4.20", "image-mode-builds").status).toBe(status);
  });

  it("MachineOSConfigs unreadable is unknown", () => {
    const s = healthyCluster({ problems: [{ part: "MachineOSConfigs", kind: "error", message: "forbidden" }] });
    expect(run(s, "4.20", "image-mode-builds").status).toBe("unknown");
  });
});

describe("boot-image-skew (reference §2.2–§2.4)", () => {
  it("prod-east (AWS, 4.19.10, installed 4.12.7, Partial, no skew API) → 4.22.3: warns that 4.22 will report Upgradeable=False", () => {
    const c = run(prodEast(), "4.22.3", "boot-image-skew");
    expect(c.status).toBe("warn");
    for (const part of ["Upgradeable=False", "ClusterBootImageSkewError", "4.12.7", "4.13.0"]) expect(c.detail).toContain(part);
    expect(c.detail).toContain(`"${PROD_EAST_422_MESSAGE}"`);
    expect(c.detail).toContain("falls back to Manual with the install version");
    expect(c.detail).toContain("blocks the next minor update after arriving");
    expect(c.remediation).toMatch(/managed boot images/);
    expect(c.remediation).toMatch(/manual acknowledgement in Fleetskew/);
    expect(c.remediation).toMatch(/mode None.*scaling/);
    expect(c.evidence).toContainEqual({ kind: "ClusterVersion", name: "version", field: "status.history" });
  });

  it("managed boot images on, but a MachineSet the MCO skips keeps the install version: the remedy names that MachineSet", () => {
    const s = healthyCluster({
      version: versionFacts(history("4.19.17", "4.15.2", "4.11.7"), { availableUpdates: [] }),
      machineSets: [
        machineSet("worker-a", { ocpVersion: "4.19.17" }),
        machineSet("worker-c", { ocpVersion: "4.11.7", skipReason: "the MachineSet has an owner reference" }),
      ],
    });
    const c = run(s, "4.22.3", "boot-image-skew");
    expect(c.status).toBe("warn");
    expect(c.remediation).toMatch(/^Managed boot images are on, but the MCO skips worker-c \(the MachineSet has an owner reference\)/);
    expect(c.remediation).not.toMatch(/turn on managed boot images/);
  });

  it("4.22.3 cluster blocked by its own status → 4.23 fails with the cluster's own message", () => {
    const s = prodEast422();
    s.machineConfigOperator = [cond("Upgradeable", "False", "ClusterBootImageSkewError", "as the cluster words it")];
    const c = run(s, "4.23", "boot-image-skew");
    expect(c.status).toBe("fail");
    expect(c.detail).toContain('reason ClusterBootImageSkewError: "as the cluster words it"');
    expect(c.evidence).toContainEqual({ kind: "ClusterOperator", name: "machine-config", field: "status.conditions[Upgradeable]" });
    expect(evaluateReadiness(s, "4.23").blockers).toContain("boot-image-skew");
  });

  it("the same cluster → 4.22.5 (z-stream) passes, noting it still blocks the next minor", () => {
    const c = run(prodEast422(), "4.22.5", "boot-image-skew");
    expect(c.status).toBe("pass");
    expect(c.detail).toContain("blocks only minor updates");
    expect(c.detail).toContain("still blocks the next minor update");
    expect(c.detail).toContain(PROD_EAST_422_MESSAGE);
    expect(c.remediation).toBeNull();
  });

  it("after the acknowledgement (Manual, rhcosVersion 9.6.20250701-0, Upgradeable=True) → 4.23 passes", () => {
    const c = run(prodEast422Acknowledged(), "4.23", "boot-image-skew");
    expect(c.status).toBe("pass");
    expect(c.detail).toContain("9.6.20250701-0");
    expect(evaluateReadiness(prodEast422Acknowledged(), "4.23").blockers).toEqual([]);
  });

  type Case = {
    rule: string;
    s: ClusterSnapshot;
    target: string;
    status: CheckStatus;
    detail: RegExp;
    limits?: { fromRelease: string; ocpVersion: string; rhelVersion: string }[];
  };
  const cases: Case[] = [
    { rule: "a release before 4.22 does not enforce", s: prodEast(), target: "4.21.3", status: "pass", detail: /does not enforce/ },
    {
      rule: "managed boot images with a clean pass stay within the limit at 4.22",
      s: healthyCluster(),
      target: "4.22.0",
      status: "pass",
      detail: /Automatic 4\.22\.0.*within the minimum 4\.13\.0/,
    },
    {
      rule: "a skipped MachineSet keeps the install version → predicted block (Automatic)",
      s: {
        ...prodEast(),
        managedMachineSets: { spec: "All", status: "All" },
        machineSets: [machineSet("owned", { ocpVersion: "4.12.7", skipReason: "has an owner reference" })],
      },
      target: "4.22.1",
      status: "warn",
      detail: /skips owned, so it keeps the install version/,
    },
    {
      rule: "single-node: the MCO does not enforce (None)",
      s: { ...prodEast(), topology: "SingleReplica" },
      target: "4.22.1",
      status: "pass",
      detail: /not enforced.*single-node/,
    },
    {
      rule: "multi-minor through an enforcing minor: blocked on the way → fail",
      s: { ...prodEast(), version: versionFacts(history("4.21.4", "4.12.7")) },
      target: "4.23.1",
      status: "fail",
      detail: /once at 4\.22 on the way to 4\.23\.1.*ClusterBootImageSkewError.*cannot be reached/,
    },
    {
      rule: "a degraded pool hides the skew reason; the cluster's own record below the limit still fails",
      s: {
        ...prodEast422(),
        machineConfigOperator: [cond("Upgradeable", "False", "DegradedPool", "One or more machine config pools are degraded")],
      },
      target: "4.23",
      status: "fail",
      detail: /Predicted: the cluster's boot-image record \(Manual 4\.12\.7\) is below the limit.*overrides ClusterBootImageSkewError/,
    },
    {
      rule: "the limits table comes from the options: a later, stricter limit predicts a block",
      s: prodEast422Acknowledged(),
      target: "4.25.0",
      limits: [
        { fromRelease: "4.22.0", ocpVersion: "4.13.0", rhelVersion: "9.2" },
        { fromRelease: "4.25.0", ocpVersion: "4.16.0", rhelVersion: "9.8" },
      ],
      status: "warn",
      detail: /RHEL version: 9\.6\), which is below the minimum required RHEL version 9\.8/,
    },
    {
      rule: "an empty limits table means nothing enforces",
      s: prodEast(),
      target: "4.22.3",
      limits: [],
      status: "pass",
      detail: /does not enforce/,
    },
    {
      rule: "an unparseable acknowledged value does not block (the MCO logs it), and the detail says so",
      s: {
        ...prodEast(),
        enforcement: {
          served: true,
          spec: { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.x", rhcosVersion: null } },
          status: null,
        },
      },
      target: "4.22.3",
      status: "pass",
      detail: /cannot be parsed; the MCO does not block on it/,
    },
    { rule: "an invalid target cannot be assessed", s: prodEast(), target: "soon", status: "unknown", detail: /not an OpenShift version/ },
  ];
  it.each(cases)("$rule", ({ s, target, status, detail, limits }) => {
    const c = check(evaluateReadiness(s, target, limits ? { limits } : {}), "boot-image-skew");
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });
});

describe("machinesets-skipped (reference §2.2, §4)", () => {
  it.each([
    {
      rule: "a MachineSet the MCO would skip warns, with the reason and the install version it keeps",
      s: {
        ...prodEast(),
        machineSets: [
          ...prodEast().machineSets,
          machineSet("gpu", { skipReason: "ami.id is not set (the AMI is chosen by filters), so the MCO skips it" }),
        ],
      },
      status: "warn",
      detail: /gpu \(ami\.id is not set.*install version 4\.12\.7/,
    },
    { rule: "all MachineSets manageable passes", s: prodEast(), status: "pass", detail: /all 4 MachineSets/ },
    {
      rule: "an unsupported platform passes (boot images are updated by hand)",
      s: { ...prodEast(), platform: "OpenStack" },
      status: "pass",
      detail: /does not update MachineSet boot images on OpenStack/,
    },
    { rule: "no MachineSets passes", s: healthyCluster({ machineSets: [] }), status: "pass", detail: /no MachineSets/ },
    {
      rule: "MachineSets unreadable is unknown",
      s: healthyCluster({ machineSets: [], problems: [{ part: "MachineSets", kind: "error", message: "forbidden" }] }),
      status: "unknown",
      detail: /forbidden/,
    },
  ])("$rule", ({ s, status, detail }) => {
    const c = run(s, "4.22.3", "machinesets-skipped");
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });
});

describe("pinned-images: MachineConfigNode status.pinnedImageSets (reference §5.2, §6)", () => {
  const failedWorker = node("ip-10-0-77-201.ec2.internal", "worker", [
    {
      set: "worker-prefetch-app-images",
      currentGeneration: 1,
      desiredGeneration: 2,
      lastFailedGeneration: 2,
      error: "storage available is less than minimum required",
    },
  ]);
  const doneMaster = node("ip-10-0-12-34.ec2.internal", "master", [
    { set: "master-ocp-4.19.11-prefetch", currentGeneration: 1, desiredGeneration: 1 },
  ]);
  const pulling = node("w2", "worker", [{ set: "worker-prefetch-app-images", currentGeneration: 1, desiredGeneration: 2 }]);
  const retrying = node("w3", "worker", [
    { set: "s", currentGeneration: 1, desiredGeneration: 3, lastFailedGeneration: 2, error: "old failure" },
  ]);
  it.each([
    {
      rule: "a failed generation (lastFailed ≥ desired, with error) of a set outside any bundle for the target warns with the node's error text",
      nodes: [doneMaster, failedWorker, pulling],
      status: "warn",
      detail: /ip-10-0-77-201\.ec2\.internal, set worker-prefetch-app-images: "storage available is less than minimum required"/,
    },
    {
      rule: "current < desired warns: still pulling",
      nodes: [doneMaster, pulling],
      status: "warn",
      detail: /w2, set worker-prefetch-app-images \(generation 1 of 2\)/,
    },
    { rule: "an older failure being retried counts as pulling", nodes: [retrying], status: "warn", detail: /w3/ },
    { rule: "all complete passes", nodes: [doneMaster], status: "pass", detail: /Every node/ },
    { rule: "nothing pinned passes", nodes: [node("a", "worker")], status: "pass", detail: /No pinned image sets/ },
  ])("$rule", ({ nodes, status, detail }) => {
    const c = run(healthyCluster({ nodes }), "4.19.11", "pinned-images");
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });

  it("a failed set of the bundle for the target release fails; the same failure for another release only warns", () => {
    const bundleSet = { name: "worker-prefetch-app-images", images: 3, generation: 2, labels: { [RELEASE_LABEL]: "4.19.11" } };
    const cluster = healthyCluster({ nodes: [doneMaster, failedWorker], pinnedImageSets: [bundleSet] });
    const forTarget = run(cluster, "4.19.11", "pinned-images");
    expect(forTarget.status).toBe("fail");
    expect(forTarget.detail).toMatch(/Pre-loading the bundle for 4\.19\.11 failed on 1 node/);
    expect(run(cluster, "4.20", "pinned-images").status).toBe("warn");
    // A minor target counts bundles for any release of that minor.
    expect(run(cluster, "4.19", "pinned-images").status).toBe("fail");
    const stillPulling = healthyCluster({ nodes: [pulling], pinnedImageSets: [bundleSet] });
    expect(run(stillPulling, "4.19.11", "pinned-images")).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/still being pulled/),
    });
  });

  it("cites the MachineConfigNode entry", () => {
    expect(run(healthyCluster({ nodes: [failedWorker] }), "4.20", "pinned-images").evidence).toEqual([
      { kind: "MachineConfigNode", name: "ip-10-0-77-201.ec2.internal", field: "status.pinnedImageSets[worker-prefetch-app-images]" },
    ]);
  });

  it("MachineConfigNodes not served (before 4.19) passes; a read error is unknown", () => {
    const notServed = healthyCluster({
      problems: [{ part: "MachineConfigNodes", kind: "not-available", message: "not served by this version" }],
    });
    expect(run(notServed, "4.20", "pinned-images").status).toBe("pass");
    const error = healthyCluster({ problems: [{ part: "MachineConfigNodes", kind: "error", message: "timeout" }] });
    expect(run(error, "4.20", "pinned-images").status).toBe("unknown");
  });
});

describe("conditional-update-risks (reference §7, anchors §4.3)", () => {
  const risky = healthyCluster({
    version: versionFacts(history("4.19.10"), {
      availableUpdates: ["4.19.11", "4.20.4"],
      conditionalUpdates: [
        {
          version: "4.20.2",
          recommended: "False",
          risks: [
            { name: "AWSMetadataRace", message: "Nodes may fail to join on AWS.", url: "https://issues.redhat.com/browse/OCPBUGS-1" },
          ],
        },
      ],
    }),
  });
  const noService = (status: string) =>
    healthyCluster({
      version: versionFacts(history("4.19.10"), {
        conditions: [
          ...healthyCvConditions("4.19.10").filter((c) => c.type !== "RetrievedUpdates"),
          cond("RetrievedUpdates", status, "RemoteFailed"),
        ],
      }),
    });
  it.each([
    {
      rule: "a conditional update warns with the risks' names, messages and URLs (not fail: it can still be accepted)",
      s: risky,
      target: "4.20.2",
      status: "warn",
      detail: /AWSMetadataRace: Nodes may fail to join on AWS\. \(https:\/\/issues\.redhat\.com\/browse\/OCPBUGS-1\)/,
    },
    { rule: "a recommended update passes", s: risky, target: "4.20.4", status: "pass", detail: /recommended/ },
    {
      rule: "a minor-only target passes when a release of that minor is recommended",
      s: risky,
      target: "4.20",
      status: "pass",
      detail: /4\.20\.4/,
    },
    {
      rule: "not listed while the update service answered warns: not a recommended path",
      s: risky,
      target: "4.20.9",
      status: "warn",
      detail: /does not list 4\.20\.9/,
    },
    {
      rule: "not listed and RetrievedUpdates=False is unknown",
      s: noService("False"),
      target: "4.20.1",
      status: "unknown",
      detail: /RetrievedUpdates=False/,
    },
    { rule: "the same release needs no recommendation", s: risky, target: "4.19.10", status: "pass", detail: /already runs/ },
  ])("$rule", ({ s, target, status, detail }) => {
    const c = run(s, target, "conditional-update-risks");
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });

  it("a minor-only target offered only conditionally names the releases and their risks", () => {
    const onlyRisky = healthyCluster({ version: { ...risky.version!, availableUpdates: ["4.19.11"] } });
    const c = run(onlyRisky, "4.20", "conditional-update-risks");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("AWSMetadataRace (4.20.2)");
  });
});

describe("rhel-major-change: boot image RHEL major vs the target's (4.13+ is RHEL 9)", () => {
  it.each([
    {
      rule: "RHEL 8 boot images (412.86 builds) and a RHEL 9 target warn",
      s: prodEast(),
      target: "4.22.3",
      status: "warn",
      detail: /3 MachineSets boot from a RHEL 8 based image.*RHEL 9 based/,
    },
    {
      rule: "OCP ≤ 4.12 without a build string counts as RHEL 8",
      s: healthyCluster({ machineSets: [machineSet("old", { ocpVersion: "4.12" })] }),
      target: "4.20",
      status: "warn",
      detail: /old: 4\.12/,
    },
    { rule: "RHEL 9 boot images pass", s: prodEast422Acknowledged(), target: "4.23", status: "pass", detail: /RHEL 9/ },
    {
      rule: "a RHEL 8 target (4.12) does not warn for RHEL 8 boot images",
      s: { ...prodEast(), version: versionFacts(history("4.11.40", "4.11.1")) },
      target: "4.12.7",
      status: "pass",
      detail: /RHEL 8/,
    },
    {
      rule: "unknown boot images are unknown",
      s: healthyCluster({ machineSets: [machineSet("vsphere-template")] }),
      target: "4.20",
      status: "unknown",
      detail: /vsphere-template/,
    },
    {
      rule: "a later major's RHEL is not known to Fleetskew",
      s: prodEast422Acknowledged(),
      target: "5.0",
      status: "unknown",
      detail: /5\.0/,
    },
  ])("$rule", ({ s, target, status, detail }) => {
    const c = run(s, target, "rhel-major-change");
    expect(c.status).toBe(status);
    expect(c.detail).toMatch(detail);
  });
});

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
        cond("UpgradeableClusterOperators", "False", "ClusterBootImageSkewError", "Cluster operator machine-config cannot be upgraded …"),
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
    expect(rollUpReadiness([])).toEqual({ counts: { pass: 0, warn: 0, fail: 0, unknown: 0 }, mostCommonBlocker: null });
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
