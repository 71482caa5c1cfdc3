import { describe, expect, it } from "vitest";
import { evaluateReadiness } from ".";
import {
  cond,
  healthyCluster,
  healthyCvConditions,
  history,
  PROD_EAST_422_MESSAGE,
  prodEast,
  prodEast422,
  versionFacts,
} from "../testing/snapshots";
import { check, run, withCv, cvPlus } from "./testing";
import type { ConditionalUpdate } from "../snapshot";

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

describe("cv-upgradeable: Upgradeable=False blocks minor updates, not z-stream ones (docs/openshift.md §20.2)", () => {
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

describe("other ClusterVersion conditions (docs/openshift.md §20.4)", () => {
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

describe("conditional-update-risks (docs/openshift.md §20.4)", () => {
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

describe("conditional-update-risks with Applies and accepted risks (openshift/api ClusterUpdateAcceptRisks, docs/openshift.md §27.1)", () => {
  const withRisks = (risks: ConditionalUpdate["risks"], acceptRisks?: string[] | null) =>
    healthyCluster({
      version: {
        ...versionFacts(history("4.21.5"), {
          availableUpdates: ["4.21.6"],
          conditionalUpdates: [{ version: "4.22.1", recommended: "False", risks }],
        }),
        acceptRisks,
      },
    });
  const applying = {
    name: "SRIOVFailedToConfigureVF",
    message: "VFs may fail.",
    url: "https://issues.redhat.com/browse/OCPBUGS-2",
    applies: "True" as const,
  };
  const notApplying = {
    name: "AzureDiskAttach",
    message: "Disks attach slowly on Azure.",
    url: "https://issues.redhat.com/browse/OCPBUGS-3",
    applies: "False" as const,
  };

  it("names each risk with whether it applies to this cluster, and warns while one applies", () => {
    const c = run(withRisks([applying, notApplying]), "4.22.1", "conditional-update-risks");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain(
      "SRIOVFailedToConfigureVF [applies to this cluster]: VFs may fail. (https://issues.redhat.com/browse/OCPBUGS-2)",
    );
    expect(c.detail).toContain("AzureDiskAttach [does not apply to this cluster]");
  });

  it("passes when no risk applies, as the CVO then recommends the update", () => {
    const c = run(withRisks([notApplying]), "4.22.1", "conditional-update-risks");
    expect(c.status).toBe("pass");
    expect(c.detail).toContain("does not apply");
  });

  it("passes when every applying risk is accepted in spec.desiredUpdate.acceptRisks, and names what the cluster accepts", () => {
    const c = run(withRisks([applying, notApplying], ["SRIOVFailedToConfigureVF", "OldRisk"]), "4.22.1", "conditional-update-risks");
    expect(c.status).toBe("pass");
    expect(c.detail).toContain("SRIOVFailedToConfigureVF [applies to this cluster; accepted by the cluster]");
    expect(c.detail).toContain("accepts the risks OldRisk, SRIOVFailedToConfigureVF (spec.desiredUpdate.acceptRisks)");
    expect(c.evidence.map((e) => e.field)).toContain("spec.desiredUpdate.acceptRisks");
  });

  it("a risk whose Applies is Unknown or not reported still warns unless accepted", () => {
    const unknownRisk = { ...applying, applies: "Unknown" as const, appliesReason: "EvaluationFailed" };
    expect(run(withRisks([unknownRisk]), "4.22.1", "conditional-update-risks")).toMatchObject({ status: "warn" });
    expect(run(withRisks([unknownRisk]), "4.22.1", "conditional-update-risks").detail).toContain(
      "whether it applies is unknown (EvaluationFailed)",
    );
    const unreported = { name: applying.name, message: applying.message, url: applying.url };
    expect(run(withRisks([unreported]), "4.22.1", "conditional-update-risks").status).toBe("warn");
    expect(run(withRisks([unreported], [applying.name]), "4.22.1", "conditional-update-risks").status).toBe("pass");
  });

  it("a target neither available nor conditional says so", () => {
    const c = run(withRisks([applying]), "4.22.3", "conditional-update-risks");
    expect(c.status).toBe("warn");
    expect(c.detail).toContain("does not list 4.22.3");
  });
});
