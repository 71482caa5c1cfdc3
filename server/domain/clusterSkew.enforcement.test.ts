import { describe, expect, it } from "vitest";
import { assessSkew, clusterSkew } from "./clusterSkew";
import type { BareMetalProvisioningFacts, ClusterSnapshot, EnforcementValue } from "./snapshot";
import { manualSpec, variant } from "./testing/skew";
import { healthyCluster, machineSet, prodEast, prodEast422, prodEast422Acknowledged } from "./testing/snapshots";
import { type EnforcementMode, effectiveEnforcement } from "./skewEnforcement";

describe("effectiveEnforcement: predicting the MCO's mode and value at another release (docs/openshift.md §16.1, first match wins)", () => {
  const cases: {
    rule: string;
    snapshot: ClusterSnapshot;
    release: string;
    mode: EnforcementMode;
    value: EnforcementValue | null;
    fallback: boolean;
  }[] = [
    {
      rule: "§16.1 rule 1 spec Manual is mirrored with the admin's value",
      snapshot: variant({ enforcement: manualSpec({ ocpVersion: "4.19.0" }) }),
      release: "4.22.3",
      mode: "Manual",
      value: { ocpVersion: "4.19.0", rhcosVersion: null },
      fallback: false,
    },
    {
      rule: "§16.1 rule 1 spec Manual with an RHCOS build is mirrored",
      snapshot: variant({ enforcement: manualSpec({ rhcosVersion: "9.6.20250701-0" }, "RHCOSVersion") }),
      release: "4.22.3",
      mode: "Manual",
      value: { ocpVersion: null, rhcosVersion: "9.6.20250701-0" },
      fallback: false,
    },
    {
      rule: "§16.1 rule 1 spec None is mirrored (the admin opted out)",
      snapshot: variant({ enforcement: { served: true, spec: { mode: "None", manual: null }, status: null } }),
      release: "4.22.3",
      mode: "None",
      value: null,
      fallback: false,
    },
    {
      rule: "§16.1 rule 1 before §16.1 rule 3: spec wins over single-node",
      snapshot: variant({ topology: "SingleReplica", enforcement: manualSpec({ ocpVersion: "4.16.0" }) }),
      release: "4.22.3",
      mode: "Manual",
      value: { ocpVersion: "4.16.0", rhcosVersion: null },
      fallback: false,
    },
    {
      rule: "§16.1 rule 3 single-node (SingleReplica) → None",
      snapshot: variant({ topology: "SingleReplica" }),
      release: "4.22.3",
      mode: "None",
      value: null,
      fallback: false,
    },
    {
      rule: "§16.1 rule 4 supported platform + All (default-on, no admin opinion) → Automatic with the release's boot images",
      snapshot: healthyCluster(),
      release: "4.22.3",
      mode: "Automatic",
      value: { ocpVersion: "4.22.3", rhcosVersion: null },
      fallback: false,
    },
    {
      rule: "§16.1 rule 4 a minor-only release is normalised to x.y.0",
      snapshot: healthyCluster(),
      release: "4.23",
      mode: "Automatic",
      value: { ocpVersion: "4.23.0", rhcosVersion: null },
      fallback: false,
    },
    {
      rule: "§16.1 rule 4 supported + All, but a MachineSet is reconcile-skipped → Automatic with the install version",
      snapshot: variant({
        managedMachineSets: { spec: "All", status: "All" },
        machineSets: [machineSet("owned", { ocpVersion: "4.12.7", skipReason: "has an owner reference" })],
      }),
      release: "4.22.3",
      mode: "Automatic",
      value: { ocpVersion: "4.12.7", rhcosVersion: null },
      fallback: true,
    },
    {
      rule: "§16.1 rule 5 MachineSets Partial → Manual with the install version (prod-east)",
      snapshot: prodEast(),
      release: "4.22.3",
      mode: "Manual",
      value: { ocpVersion: "4.12.7", rhcosVersion: null },
      fallback: true,
    },
    {
      rule: "§16.1 rule 5 MachineSets None → Manual with the install version",
      snapshot: variant({ managedMachineSets: { spec: "None", status: "None" } }),
      release: "4.22.3",
      mode: "Manual",
      value: { ocpVersion: "4.12.7", rhcosVersion: null },
      fallback: true,
    },
    {
      rule: "§16.1 rule 5 unsupported platform (OpenStack) → Manual with the install version",
      snapshot: variant({ platform: "OpenStack", managedMachineSets: { spec: null, status: null } }),
      release: "4.22.3",
      mode: "Manual",
      value: { ocpVersion: "4.12.7", rhcosVersion: null },
      fallback: true,
    },
    {
      rule: "§14 Azure is default-on only from 4.22: at 4.21 with no opinion it is Manual with the install version",
      snapshot: variant({ platform: "Azure", managedMachineSets: { spec: null, status: null } }),
      release: "4.21.4",
      mode: "Manual",
      value: { ocpVersion: "4.12.7", rhcosVersion: null },
      fallback: true,
    },
    {
      rule: "§14 Azure at 4.22 with no opinion → default-on All → Automatic",
      snapshot: variant({ platform: "Azure", managedMachineSets: { spec: null, status: null } }),
      release: "4.22.0",
      mode: "Automatic",
      value: { ocpVersion: "4.22.0", rhcosVersion: null },
      fallback: false,
    },
    {
      rule: "§14 a later major (5.0) keeps AWS support: All → Automatic, not an install-version fallback",
      snapshot: healthyCluster(),
      release: "5.0.1",
      mode: "Automatic",
      value: { ocpVersion: "5.0.1", rhcosVersion: null },
      fallback: false,
    },
    {
      rule: "§16.1 install version: no history at all → 0.0.0, as GetOCPInstallVersion falls back",
      snapshot: variant({ version: null }),
      release: "4.22.3",
      mode: "Manual",
      value: { ocpVersion: "0.0.0", rhcosVersion: null },
      fallback: true,
    },
  ];

  it.each(cases)("$rule", ({ snapshot, release, mode, value, fallback }) => {
    const e = effectiveEnforcement(snapshot, release);
    expect(e.source).toBe("predicted");
    expect(e.mode).toBe(mode);
    expect(e.value).toEqual(value);
    expect(e.installVersionFallback).toBe(fallback);
    expect(e.basis.length).toBeGreaterThan(0);
  });
});

describe("effectiveEnforcement §16.1 rule 2: bare metal off the legacy provisioning path → None", () => {
  const legacy: BareMetalProvisioningFacts = {
    legacyPath: true,
    reason: "Provisioning provisioning-configuration has spec.provisioningOSDownloadURL set",
  };
  const noObject: BareMetalProvisioningFacts = { legacyPath: false, reason: "the cluster has no Provisioning provisioning-configuration" };
  const emptyUrl: BareMetalProvisioningFacts = {
    legacyPath: false,
    reason: "Provisioning provisioning-configuration has no spec.provisioningOSDownloadURL",
  };
  const readFailed: BareMetalProvisioningFacts = {
    legacyPath: null,
    reason: "Provisioning provisioning-configuration could not be read: forbidden",
  };
  const notServed: BareMetalProvisioningFacts = {
    legacyPath: null,
    reason: "the cluster does not serve metal3.io/v1alpha1 Provisioning (Provisioning is not in the capture)",
  };
  /** prod-east (installed 4.12.7) on bare metal, multi-node, no skew spec. */
  const metal = (provisioning: BareMetalProvisioningFacts | undefined, overrides: Partial<ClusterSnapshot> = {}): ClusterSnapshot =>
    variant({
      platform: "BareMetal",
      managedMachineSets: { spec: null, status: null },
      ...(provisioning ? { bareMetalProvisioning: provisioning } : {}),
      ...overrides,
    });
  const fallback = { ocpVersion: "4.12.7", rhcosVersion: null };

  const cases: {
    rule: string;
    snapshot: ClusterSnapshot;
    mode: EnforcementMode;
    value: EnforcementValue | null;
    basis: RegExp;
    block: boolean;
    note: RegExp | null;
  }[] = [
    {
      rule: "provisioningOSDownloadURL set: the legacy path, so the MCO's normal rules apply (Manual with the install version)",
      snapshot: metal(legacy),
      mode: "Manual",
      value: fallback,
      basis: /does not update boot images on platform BareMetal/,
      block: true,
      note: /bare metal on the legacy provisioning path \(.*provisioningOSDownloadURL set\)/,
    },
    {
      rule: "no Provisioning object: not legacy → None",
      snapshot: metal(noObject),
      mode: "None",
      value: null,
      basis:
        /^bare metal off the legacy provisioning path \(the cluster has no Provisioning provisioning-configuration\): the MCO does not enforce/,
      block: false,
      note: null,
    },
    {
      rule: "an empty provisioningOSDownloadURL: not legacy → None",
      snapshot: metal(emptyUrl),
      mode: "None",
      value: null,
      basis: /off the legacy provisioning path \(.*has no spec\.provisioningOSDownloadURL\)/,
      block: false,
      note: null,
    },
    {
      rule: "the read failed: the MCO assumes legacy, so the normal rules apply, with a note saying why",
      snapshot: metal(readFailed),
      mode: "Manual",
      value: fallback,
      basis: /falls back to Manual with the install version/,
      block: true,
      note: /legacy provisioning path is unknown \(.*could not be read: forbidden\); the MCO assumes it is/,
    },
    {
      rule: "the kind is not served (or not in a capture): unknown, legacy assumed",
      snapshot: metal(notServed),
      mode: "Manual",
      value: fallback,
      basis: /falls back to Manual/,
      block: true,
      note: /legacy provisioning path is unknown \(the cluster does not serve/,
    },
    {
      rule: "a snapshot stored before Provisioning was read (no field): unknown, legacy assumed, as before",
      snapshot: metal(undefined),
      mode: "Manual",
      value: fallback,
      basis: /falls back to Manual/,
      block: true,
      note: /not read for this snapshot/,
    },
    {
      rule: "rule 1 first: a Manual spec is mirrored even off the legacy path, and no provisioning note",
      snapshot: metal(noObject, { enforcement: manualSpec({ ocpVersion: "4.11.0" }) }),
      mode: "Manual",
      value: { ocpVersion: "4.11.0", rhcosVersion: null },
      basis: /spec\.bootImageSkewEnforcement is Manual/,
      block: true,
      note: null,
    },
    {
      rule: "rule 2 before rule 3: single-node bare metal off the legacy path is None by rule 2",
      snapshot: metal(noObject, { topology: "SingleReplica" }),
      mode: "None",
      value: null,
      basis: /^bare metal off the legacy provisioning path/,
      block: false,
      note: null,
    },
    {
      rule: "single-node bare metal on the legacy path is None by rule 3",
      snapshot: metal(legacy, { topology: "SingleReplica" }),
      mode: "None",
      value: null,
      basis: /^single-node cluster/,
      block: false,
      note: null,
    },
    {
      rule: "non-BareMetal platforms are unaffected: AWS without a Provisioning object keeps its rules (prod-east: Manual)",
      snapshot: variant({ bareMetalProvisioning: noObject }),
      mode: "Manual",
      value: fallback,
      basis: /MachineSet boot images are not fully managed/,
      block: true,
      note: null,
    },
    {
      rule: "non-BareMetal platforms are unaffected: platform None with an empty URL is Manual with the install version",
      snapshot: variant({ platform: "None", managedMachineSets: { spec: null, status: null }, bareMetalProvisioning: emptyUrl }),
      mode: "Manual",
      value: fallback,
      basis: /does not update boot images on platform None/,
      block: true,
      note: null,
    },
  ];

  it.each(cases)("$rule", ({ snapshot, mode, value, basis, block, note }) => {
    const e = effectiveEnforcement(snapshot, "4.22.3");
    expect(e).toMatchObject({ source: "predicted", mode, value });
    expect(e.basis).toMatch(basis);
    const a = assessSkew(snapshot, "4.22.3");
    expect(a.block !== null).toBe(block);
    const provisioningNotes = a.notes.filter((n) => n.includes("provisioning path"));
    if (note) expect(provisioningNotes).toEqual([expect.stringMatching(note)]);
    else expect(provisioningNotes).toEqual([]);
  });

  it("a multi-node bare-metal cluster at 4.19 off the legacy path is ok, not at risk of the 4.22 block", () => {
    expect(clusterSkew(metal(noObject))).toMatchObject({
      status: "ok",
      effectiveMode: "None",
      summary: expect.stringMatching(/^not enforced at 4\.22\.0 either \(bare metal off the legacy provisioning path/),
    });
    expect(clusterSkew(metal(legacy))).toMatchObject({ status: "at-risk", effectiveMode: "Manual" });
    expect(clusterSkew(metal(readFailed))).toMatchObject({ status: "at-risk", effectiveMode: "Manual" });
  });

  it("the cluster's own status still wins at its minor: the MCO has already decided", () => {
    const s = { ...prodEast422(), platform: "BareMetal", bareMetalProvisioning: noObject };
    expect(effectiveEnforcement(s, "4.22.3")).toMatchObject({ source: "cluster", mode: "Manual" });
    expect(effectiveEnforcement(s, "4.23.0")).toMatchObject({ source: "predicted", mode: "None" });
  });
});

describe("effectiveEnforcement: the cluster's own minor is read from its status (docs/openshift.md §16.1, §17.2)", () => {
  it.each([
    {
      rule: "status Manual with the install version the MCO wrote is an install-version fallback",
      snapshot: prodEast422(),
      mode: "Manual",
      value: { ocpVersion: "4.12.7", rhcosVersion: null },
      fallback: true,
    },
    {
      rule: "status Manual copied from the admin's spec is not a fallback",
      snapshot: prodEast422Acknowledged(),
      mode: "Manual",
      value: { ocpVersion: null, rhcosVersion: "9.6.20250701-0" },
      fallback: false,
    },
    {
      rule: "status Automatic is read as it is",
      snapshot: {
        ...prodEast422(),
        enforcement: {
          served: true,
          spec: null,
          status: { mode: "Automatic", automatic: { ocpVersion: "4.22.3", rhcosVersion: null }, manual: null },
        },
      },
      mode: "Automatic",
      value: { ocpVersion: "4.22.3", rhcosVersion: null },
      fallback: false,
    },
  ])("$rule", ({ snapshot, mode, value, fallback }) => {
    for (const release of ["4.22.3", "4.22.9", "4.22"]) {
      const e = effectiveEnforcement(snapshot, release);
      expect(e).toMatchObject({ source: "cluster", mode, value, installVersionFallback: fallback });
    }
  });

  it("does not read the status for another minor: it predicts there", () => {
    expect(effectiveEnforcement(prodEast422Acknowledged(), "4.23.1")).toMatchObject({
      source: "predicted",
      mode: "Manual",
      value: { ocpVersion: null, rhcosVersion: "9.6.20250701-0" },
    });
  });

  it("predicts when the status is not written yet, even at the cluster's own minor", () => {
    const s = { ...prodEast422(), enforcement: { served: true, spec: null, status: null } };
    expect(effectiveEnforcement(s, "4.22.3")).toMatchObject({ source: "predicted", mode: "Manual", value: { ocpVersion: "4.12.7" } });
  });
});
