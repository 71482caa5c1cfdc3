import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generatedObjects, paramsFor } from "../simulator/scenarios/generate";
import { resolveBootImage } from "./bootImages";
import { selectorMatches } from "./labelSelector";
import type { ClusterBootContext, MachineSetInput } from "./bootImageInputs";

const fixture = (f: string) => JSON.parse(readFileSync(path.join(__dirname, "../simulator/fixtures/prod-east", f), "utf8"));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form Kubernetes JSON, as the fixtures and the simulator hold it
type Obj = { kind?: string; metadata: Record<string, any>; spec?: any; status?: any; data?: Record<string, string> };
function contextOf(objects: Obj[]): ClusterBootContext {
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === "coreos-bootimages")!;
  return {
    stream: JSON.parse(cm.data!.stream!),
    releaseVersion: cm.data!.releaseVersion ?? null,
    history: objects.find((o) => o.kind === "ClusterVersion")!.status.history,
    platform: objects.find((o) => o.kind === "Infrastructure")?.status.platformStatus.type ?? "AWS",
    machineManagers: objects.find((o) => o.kind === "MachineConfiguration")!.status.managedBootImagesStatus?.machineManagers ?? null,
  };
}
const input = (ms: Obj): MachineSetInput => ({
  name: ms.metadata.name,
  labels: ms.metadata.labels,
  annotations: ms.metadata.annotations,
  ownerReferences: ms.metadata.ownerReferences,
  providerSpec: ms.spec.template.spec.providerSpec.value,
});

describe("resolveBootImage on the reference cluster", () => {
  const objects: Obj[] = [
    fixture("configmap-coreos-bootimages.json"),
    fixture("clusterversion.json"),
    fixture("machineconfiguration.json"),
    { kind: "Infrastructure", metadata: { name: "cluster" }, status: { platformStatus: { type: "AWS" } } },
  ];
  const context = contextOf(objects);
  const machineSets: Obj[] = fixture("machinesets.json").items;
  const resolved = Object.fromEntries(machineSets.map((ms) => [ms.metadata.name, resolveBootImage(input(ms), context)]));

  it("finds the infra MachineSet on the stream's AMI, managed through the Partial selector", () => {
    expect(resolved["prod-east-7xk2p-infra-us-east-1a"]).toMatchObject({
      display: "ami-0422676091bb78731 (us-east-1)",
      rhcosBuild: "9.6.20250701-0",
      ocpVersion: "4.19.10",
      provenance: "stream",
      matchesStream: true,
      mco: { action: "update", reason: "selected by the Partial machineResourceSelector" },
    });
  });

  it("falls back to the install version for the workers' old AMI, and says the MCO leaves them out (not enrolled)", () => {
    expect(resolved["prod-east-7xk2p-worker-us-east-1a"]).toMatchObject({
      display: "ami-01b0a1a972deefb6a (us-east-1)",
      rhcosBuild: null,
      ocpVersion: "4.12.7",
      provenance: "install-version",
      matchesStream: false,
      mco: { action: "exclude", reason: "not selected by the Partial machineResourceSelector" },
    });
  });

  it("uses what the fleet has learned before falling back", () => {
    const catalog = {
      lookup: (key: string) =>
        key === "aws:us-east-1:ami-01b0a1a972deefb6a" ? { rhcosBuild: "412.86.202301311551-0", ocpVersion: null } : null,
    };
    expect(resolveBootImage(input(machineSets[0]!), context, catalog)).toMatchObject({
      rhcosBuild: "412.86.202301311551-0",
      ocpVersion: "4.12",
      provenance: "catalog",
    });
  });

  it("says why the MCO skips a MachineSet with an owner, an AMI chosen by filters, or a region the stream lacks", () => {
    const all = {
      ...context,
      machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
    };
    const ms = input(machineSets[0]!);
    expect(resolveBootImage({ ...ms, ownerReferences: [{ kind: "MachinePool", name: "p" }] }, all).mco.reason).toBe(
      "has an owner reference (MachinePool/p); the MCO leaves it to that owner and counts it as skipped",
    );
    const byFilters = { ...(ms.providerSpec as object), ami: { filters: [{ name: "name", values: ["rhcos*"] }] } };
    expect(resolveBootImage({ ...ms, providerSpec: byFilters }, all)).toMatchObject({ display: "AMI by filters", mco: { action: "skip" } });
    const farAway = { ...(ms.providerSpec as object), placement: { region: "mars-north-1" } };
    expect(resolveBootImage({ ...ms, providerSpec: farAway }, all).mco.reason).toBe(
      "region mars-north-1 has no x86_64 AMI in the cluster's boot image stream",
    );
    // platform_helpers.go reconcileAWSProviderSpec at release-4.22: the compiled AllowedAMIs decides. The
    // reference cluster's 4.12 AMI is in it; a site's own copy is not, whatever the fleet has seen.
    const LIST = "release-4.22's AllowedAMIs (pkg/controller/bootimage/ami.go at 9027c94cde45, 9,573 AMIs)";
    expect(resolveBootImage(ms, all).mco).toEqual({
      action: "update",
      reason: `all MachineSets are managed (mode All); ami-01b0a1a972deefb6a is in ${LIST}`,
      amiList: LIST,
    });
    const copied = { ...(ms.providerSpec as object), ami: { id: "ami-0123456789abcdef0" } };
    const known = {
      lookup: (key: string) =>
        key === "aws:us-east-1:ami-0123456789abcdef0" ? { rhcosBuild: "412.86.202301311551-0", ocpVersion: "4.12.7" } : null,
    };
    for (const catalog of [undefined, known])
      expect(resolveBootImage({ ...ms, providerSpec: copied }, all, catalog).mco).toEqual({
        action: "skip",
        basis: "observed",
        reason: `ami-0123456789abcdef0 is not in ${LIST}, so the 4.22 MCO skips it`,
        amiList: LIST,
      });
    // aws_helpers.go detectAMIKind from 4.23: the owner, which Fleetskew cannot ask EC2 for.
    const at423 = { ...all, release: "4.23.1" };
    expect(resolveBootImage({ ...ms, providerSpec: copied }, at423).mco).toMatchObject({ action: "skip", basis: "unknown" });
    expect(resolveBootImage({ ...ms, providerSpec: copied }, at423, known).mco).toMatchObject({
      action: "update",
      reason: "all MachineSets are managed (mode All); ami-0123456789abcdef0 is a published RHCOS AMI",
      ifFails: expect.stringContaining("AMI ami-0123456789abcdef0 not found"),
    });
    expect(resolveBootImage(ms, { ...all, machineManagers: null }).mco.action).toBe("exclude");
  });

  it("never throws on a provider spec of an unexpected shape", () => {
    for (const providerSpec of [null, 42, "x", { kind: "AWSMachineProviderConfig", ami: "not-an-object" }, { kind: "Nope" }]) {
      expect(() => resolveBootImage({ name: "odd", providerSpec }, context)).not.toThrow();
    }
    expect(resolveBootImage({ name: "odd", providerSpec: { kind: "Nope" } }, context)).toMatchObject({
      provenance: "unknown",
      display: "Nope (boot image not resolvable)",
    });
  });
});

describe("resolveBootImage across platforms", () => {
  const clusters = Array.from({ length: 300 }, (_, i) => paramsFor(i, 1)).filter((p) => p.topology === "standard");
  const first = (platform: string) => {
    const p = clusters.find((c) => c.platform === platform)!;
    const objects = generatedObjects(p) as Obj[];
    return { p, context: contextOf(objects), machineSets: objects.filter((o) => o.kind === "MachineSet") };
  };

  it("reads GCP builds from the image name", () => {
    const { context, machineSets } = first("GCP");
    const r = resolveBootImage(input(machineSets[machineSets.length - 1]!), context);
    expect(["stream", "image-name"]).toContain(r.provenance);
    expect(r.rhcosBuild).toMatch(/^\d+\.\d+\.\d{8}/);
  });

  it("reads Azure marketplace versions and treats legacy resource IDs by the install version", () => {
    const { context, machineSets } = first("Azure");
    const r = resolveBootImage(input(machineSets[0]!), context);
    if (r.reference.platform === "Azure" && r.reference.marketplace) expect(r.provenance).toBe("image-name");
    else expect(r.provenance).toBe("install-version");
  });

  it.each([
    ["416.94.20240529", "416.94.20240529", "4.16"],
    ["412.86.20230131", "412.86.20230131", "4.12"],
    ["9.6.20250701", "9.6.20250701", null],
  ])("an Azure marketplace version %s is build %s of OCP %s", (version, build, ocp) => {
    const ms: MachineSetInput = {
      name: "azure-worker",
      providerSpec: {
        kind: "AzureMachineProviderSpec",
        image: { publisher: "azureopenshift", offer: "aro4", sku: "aro_416", version, resourceID: "" },
      },
    };
    const context: ClusterBootContext = { stream: null, releaseVersion: "4.19.10", history: [], platform: "Azure", machineManagers: null };
    expect(resolveBootImage(ms, context)).toMatchObject({ provenance: "image-name", rhcosBuild: build, ocpVersion: ocp });
  });

  it("admits it cannot read a vSphere template's version", () => {
    const { p, context, machineSets } = first("VSphere");
    const r = resolveBootImage(input(machineSets[0]!), context);
    expect(r).toMatchObject({ provenance: "install-version", ocpVersion: p.installVersion, matchesStream: null });
    expect(r.notes.join(" ")).toContain("cannot be read from the API");
  });

  it("reports bare-metal boot images as not resolvable, and not managed by the MCO", () => {
    const { context, machineSets } = first("BareMetal");
    expect(resolveBootImage(input(machineSets[0]!), context)).toMatchObject({
      provenance: "unknown",
      mco: { action: "exclude", reason: "the MCO does not manage boot images on BareMetal" },
    });
  });
});

describe("selectorMatches", () => {
  it("follows Kubernetes label selector rules", () => {
    expect(selectorMatches({ matchLabels: { a: "1" } }, { a: "1", b: "2" })).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "In", values: ["1", "3"] }] }, { a: "1" })).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] }, { a: "1" })).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, {})).toBe(true);
    expect(selectorMatches({}, { x: "y" })).toBe(true);
    expect(selectorMatches(null, { x: "y" })).toBe(false);
  });
});
