import { describe, expect, it } from "vitest";
import { resolveBootImage } from "./bootImages";
import { assessSkew, clusterSkew } from "./clusterSkew";
import type { SkewLimitEntry } from "./skew";
import { healthyCluster, machineSet } from "./testing/snapshots";
import type { ClusterBootContext, MachineSetInput } from "./bootImageInputs";

/*
 * The MCO's boot image rules that Fleetskew cannot fully see (docs/openshift.md §15.4, §25):
 * AWS from 4.23 (aws_helpers.go at release-4.23 d20efd9b9bdb) and vSphere (platform_helpers.go
 * reconcileVSphereProviderSpec, vsphere_helpers.go createNewVMTemplate, release-4.22 9027c94cde45).
 */
const stream = {
  stream: "rhcos-4.23",
  architectures: {
    x86_64: {
      artifacts: { aws: { release: "9.8.20261001-0" }, vmware: { release: "9.8.20261001-0" } },
      images: { aws: { regions: { "us-east-1": { release: "9.8.20261001-0", image: "ami-0422676091bb78731" } } } },
    },
  },
};
const managedAll = [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }];
const aws = (release: string): ClusterBootContext => ({
  stream,
  releaseVersion: "4.23.0",
  history: [{ version: "4.19.10", state: "Completed" }],
  platform: "AWS",
  machineManagers: managedAll,
  release,
});
const awsSet = (ami: string, tags?: { name: string; value: string }[]): MachineSetInput => ({
  name: "w-1a",
  providerSpec: { kind: "AWSMachineProviderConfig", ami: { id: ami }, placement: { region: "us-east-1" }, ...(tags ? { tags } : {}) },
});
// An AMI of the installer's rhcos.json (release-4.22's AllowedAMIs), not in this stream.
const PUBLISHED = "ami-000065c53330c76d2";
const CUSTOM = "ami-0f0f0f0f0f0f0f0f0";
const ROSA_TAGS = [
  { name: "red-hat-managed", value: "true" },
  { name: "red-hat-clustertype", value: "rosa" },
];

describe("AWS from 4.23: reconcileAWSProviderSpec, describeAMI, detectAMIKind, findMarketplaceAMI", () => {
  it("an AMI Fleetskew cannot place depends on EC2 (basis unknown), with the MCO's words should describeAMI fail", () => {
    const d = resolveBootImage(awsSet(CUSTOM), aws("4.23.1")).mco;
    expect(d).toMatchObject({ action: "skip", basis: "unknown" });
    expect(d.reason).toMatch(/^depends on EC2: ami-0f0f0f0f0f0f0f0f0 .*detectAMIKind/);
    expect(d.ifFails).toBe(
      `error syncing MAPI MachineSet w-1a: failed to reconcile machineset w-1a, err: AMI ${CUSTOM} not found` +
        ` (or "failed to fetch aws-cloud-credentials secret: …", "DescribeImages failed for ${CUSTOM}: …" when the credentials or EC2 fail)`,
    );
  });

  it("an AMI the installer published (owner 531415883065, amiKindStandard) is updated to the stream's", () => {
    expect(resolveBootImage(awsSet(PUBLISHED), aws("4.23.1")).mco).toMatchObject({
      action: "update",
      reason: `all MachineSets are managed (mode All); ${PUBLISHED} is a published RHCOS AMI`,
    });
  });

  it("a ROSA MachineSet (amiKindROSA) is updated through the marketplace path with an rhcosVersion record", () => {
    expect(resolveBootImage(awsSet(CUSTOM, ROSA_TAGS), aws("4.23.1")).mco).toMatchObject({
      action: "update",
      basis: "assumed",
      rhcosVersion: "9.8.20261001-0",
    });
  });

  it("release-4.22 is unchanged: its AllowedAMIs decides, whatever the tags", () => {
    expect(resolveBootImage(awsSet(CUSTOM, ROSA_TAGS), aws("4.22.3")).mco).toMatchObject({ action: "skip", basis: "observed" });
    expect(resolveBootImage(awsSet(PUBLISHED), aws("4.22.3")).mco).toMatchObject({ action: "update", amiList: expect.any(String) });
  });

  // A 4.19 cluster judged at 4.23 (a table whose first enforcing release is 4.23).
  const from423: SkewLimitEntry[] = [{ fromRelease: "4.23.0", ocpVersion: "4.13.0", rhelVersion: "9.2" }];
  const cluster = (decision: ReturnType<typeof resolveBootImage>["mco"]) => {
    const ms = machineSet("w-1a", { ocpVersion: "4.12.7", rhcosBuild: "412.86.202301311551-0" });
    return healthyCluster({ machineSets: [{ ...ms, ifAllManagedAt: { "4.23": decision } }] });
  };

  it("syncMAPIMachineSets: an unplaced AMI gives no verdict (status unknown), never a confident at-risk", () => {
    const s = cluster(resolveBootImage(awsSet(CUSTOM), aws("4.23.0")).mco);
    const a = assessSkew(s, "4.23.0", from423);
    expect(a).toMatchObject({ mcoRelease: "4.23", block: null, verdict: null, enforcement: { mode: "Automatic", value: null } });
    expect(a.enforcement.undetermined).toMatch(
      /^w-1a: depends on EC2: .*Should that fail, the controller goes Degraded with error syncing MAPI MachineSet w-1a/,
    );
    const c = clusterSkew(s, from423);
    expect(c.status).toBe("unknown");
    expect(c.summary).toMatch(/^whether minor updates are blocked once at 4\.23\.0 depends on what Fleetskew cannot read/);
  });

  it("updateClusterBootImage: marketplace MachineSets record the oldest rhcosVersion, which the RHCOS check passes", () => {
    const s = cluster(resolveBootImage(awsSet(CUSTOM, ROSA_TAGS), aws("4.23.0")).mco);
    const a = assessSkew(s, "4.23.0", from423);
    expect(a.enforcement.value).toEqual({ ocpVersion: null, rhcosVersion: "9.8.20261001-0" });
    expect(a.verdict).toMatchObject({ outcome: "within-limit", compared: "rhcosVersion" });
    expect(a.block).toBeNull();
    expect(clusterSkew(s, from423).status).toBe("ok");
  });
});

describe("vSphere: reconcileVSphereProviderSpec, createNewVMTemplate", () => {
  const fd = { server: "vc.example.com", datacenter: "dc1", datastore: "ds1", resourcePool: "/dc1/host/c1/Resources", vmGroup: "" };
  const vsphere = (infra: ClusterBootContext["vsphere"]): ClusterBootContext => ({
    stream,
    releaseVersion: "4.22.0",
    history: [{ version: "4.21.4", state: "Completed" }],
    platform: "VSphere",
    machineManagers: managedAll,
    release: "4.22.1",
    vsphere: infra,
  });
  const set = (workspace: Record<string, string> | null): MachineSetInput => ({
    name: "w-vs",
    providerSpec: { kind: "VSphereMachineProviderSpec", template: "rhcos-old", ...(workspace ? { workspace } : {}) },
  });
  const ws = { server: "vc.example.com", datacenter: "dc1", datastore: "ds1", resourcePool: "/dc1/host/c1/Resources/" };

  it("a workspace matching a failure domain (path.Clean on the pool) is updated, assuming the vsphere-creds Secret", () => {
    const d = resolveBootImage(set(ws), vsphere({ vcenters: ["vc.example.com"], failureDomains: [fd] })).mco;
    expect(d).toMatchObject({ action: "update", basis: "assumed" });
    expect(d.reason).toMatch(/kube-system\/vsphere-creds Secret exists is not known to Fleetskew/);
    expect(d.ifFails).toBe(
      'error syncing MAPI MachineSet w-vs: failed to reconcile machineset w-vs, err: failed to fetch vsphere-creds Secret during machineset sync: secrets "vsphere-creds" not found',
    );
  });

  it("a workspace matching no failure domain is an error in the MCO's words", () => {
    const d = resolveBootImage(set({ ...ws, datastore: "ds2" }), vsphere({ vcenters: ["vc.example.com"], failureDomains: [fd] })).mco;
    expect(d).toMatchObject({ action: "error" });
    expect(d.error).toBe(
      "error syncing MAPI MachineSet w-vs: failed to reconcile machineset w-vs, err: providerSpec workspace (server: vc.example.com, datacenter: dc1, datastore: ds2, resourcePool: /dc1/host/c1/Resources/) does not match any vCenter/failure domain in the Infrastructure object",
    );
    // A legacy platformSpec without vCenters matches nothing either.
    expect(resolveBootImage(set(ws), vsphere({ vcenters: [], failureDomains: [] })).mco.action).toBe("error");
  });

  it("no platformSpec.vsphere: the MCO does nothing and counts it reconciled; no vmware artifact: an error", () => {
    expect(resolveBootImage(set(ws), vsphere(null)).mco).toMatchObject({ action: "update", reason: expect.stringMatching(/does nothing/) });
    const noVmware = {
      ...vsphere({ vcenters: ["vc.example.com"], failureDomains: [fd] }),
      stream: { stream: "rhcos-4.22", architectures: { x86_64: { artifacts: {} } } },
    };
    expect(resolveBootImage(set(ws), noVmware).mco.error).toBe(
      "error syncing MAPI MachineSet w-vs: failed to reconcile machineset w-vs, err: rhcos-4.22/x86_64: artifact 'vmware' not found",
    );
  });

  it("a vSphere cluster whose MachineSet fails is predicted Degraded, which blocks in Automatic mode", () => {
    const d = resolveBootImage(set({ ...ws, datastore: "ds2" }), vsphere({ vcenters: ["vc.example.com"], failureDomains: [fd] })).mco;
    const s = healthyCluster({
      platform: "VSphere",
      version: healthyCluster().version,
      machineSets: [{ ...machineSet("w-vs"), ifAllManagedAt: { "4.22": d } }],
    });
    const a = assessSkew(s, "4.22.1");
    expect(a.enforcement.degradedController).toContain("does not match any vCenter/failure domain");
    expect(a.block?.message).toMatch(/^Upgrades have been disabled due to boot image update failures: Boot image controller is degraded: /);
  });
});

describe("readiness boot-image-skew when the 4.23 MCO's outcome depends on EC2", () => {
  it("is unknown, names what it depends on and the MCO's error should it fail; never a warning of a block", async () => {
    const { run } = await import("./readiness/testing");
    const { versionFacts, history } = await import("./testing/snapshots");
    const decision = resolveBootImage(awsSet(CUSTOM), aws("4.23.0")).mco;
    const s = healthyCluster({
      version: versionFacts(history("4.22.5", "4.19.10", "4.12.7"), { availableUpdates: ["4.23.1"] }),
      enforcement: {
        served: true,
        spec: null,
        status: { mode: "Automatic", automatic: { ocpVersion: "4.22.0", rhcosVersion: null }, manual: null },
      },
      machineSets: [{ ...machineSet("w-1a", { ocpVersion: "4.12.7" }), ifAllManagedAt: { "4.23": decision } }],
    });
    const c = run(s, "4.23.1", "boot-image-skew");
    expect(c.status).toBe("unknown");
    expect(c.detail).toMatch(
      /^Whether the Machine Config Operator blocks minor updates once at 4\.23 depends on what Fleetskew cannot read: w-1a: depends on EC2/,
    );
    expect(c.detail).toContain(`AMI ${CUSTOM} not found`);
    expect(c.detail).toContain("Predicted by the rules of the 4.23 MCO (release-4.23 at d20efd9b9bdb)");
  });
});

describe("what an older controller left alone says nothing about 4.23's owner rule", () => {
  it("a 4.19 controller that settled with a Marketplace AMI in place: at 4.23 the AMI is judged afresh, not an observed skip", () => {
    const settledAt419 = { ...aws("4.23.0"), controllerSettled: true };
    expect(resolveBootImage(awsSet(CUSTOM, ROSA_TAGS), settledAt419).mco).toMatchObject({
      action: "update",
      rhcosVersion: "9.8.20261001-0",
    });
    expect(resolveBootImage(awsSet(CUSTOM), settledAt419).mco).toMatchObject({ action: "skip", basis: "unknown" });
    // A 4.23 controller that settled with it in place: EC2 answered and the owner was not one it updates.
    const settledAt423 = { ...settledAt419, history: [{ version: "4.23.2", state: "Completed" }] };
    expect(resolveBootImage(awsSet(CUSTOM), settledAt423).mco).toMatchObject({ action: "skip", basis: "observed" });
  });

  it("syncMAPIMachineSets / updateClusterBootImage: a settled 4.23 controller whose record is an rhcosVersion skipped nothing, so an AMI off the stream is a Marketplace AMI it keeps", () => {
    // release-4.23 d20efd9b9bdb ms_helpers.go: updateClusterBootImage(rhcosVersion) only when skippedCount == 0;
    // a marketplace MachineSet already on findMarketplaceAMI's pick returns (false, rhcosVersion, nil).
    const settled = {
      ...aws("4.24.0"),
      history: [{ version: "4.23.2", state: "Completed" }],
      controllerSettled: true,
      automaticRhcosVersion: "9.6.20260120-0",
    };
    const d = resolveBootImage(awsSet(CUSTOM), settled).mco;
    expect(d).toMatchObject({ action: "update", basis: "observed", rhcosVersion: "9.6.20260120-0" });
    expect(d.reason).toContain("recorded rhcosVersion 9.6.20260120-0");
    // The stream's own AMI is still the stream's; an OCP-version record keeps the observed skip.
    expect(resolveBootImage(awsSet("ami-0422676091bb78731"), settled).mco).toMatchObject({ action: "update" });
    expect(resolveBootImage(awsSet(CUSTOM), { ...settled, automaticRhcosVersion: null }).mco).toMatchObject({
      action: "skip",
      basis: "observed",
    });
  });
});
