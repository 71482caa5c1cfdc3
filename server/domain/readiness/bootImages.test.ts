import { describe, expect, it } from "vitest";
import { evaluateReadiness, type CheckStatus } from ".";
import type { ClusterSnapshot } from "../snapshot";
import {
  cond,
  healthyCluster,
  history,
  machineSet,
  PROD_EAST_422_MESSAGE,
  prodEast,
  prodEast422,
  prodEast422Acknowledged,
  versionFacts,
} from "../testing/snapshots";
import { check, run } from "./testing";

describe("boot-image-skew (docs/openshift.md §16, §17)", () => {
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

describe("machinesets-skipped (docs/openshift.md §15.2)", () => {
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
