import { describe, expect, it } from "vitest";
import { allowedAmisFor } from "./awsAllowedAmis";
import { mcoDecision, resolveBootImage } from "./bootImages";
import type { ClusterBootContext, MachineSetInput } from "./bootImageInputs";

/** platform_helpers.go reconcileAWSProviderSpec at release-4.22: the compiled AllowedAMIs (ami.go) decides, not the streams. */
const list = allowedAmisFor("4.22")!;
/** Two AMIs ami.go lists (its first lines at release-4.22). */
const [published, alsoPublished] = ["ami-000145e5a91e9ac22", "ami-0001c9b25b9ca6731"];
const X86_STREAM_AMI = "ami-0badc0ffee0ddf00d"; // a newer stream's AMI, not yet in the compiled list
const ARM_STREAM_AMI = "ami-0aa11bb22cc33dd44";
const stream = {
  stream: "rhcos-4.22",
  architectures: {
    x86_64: { images: { aws: { regions: { "us-east-1": { release: "9.6.20260415-0", image: X86_STREAM_AMI } } } } },
    aarch64: { images: { aws: { regions: { "us-east-1": { release: "9.6.20260415-0", image: ARM_STREAM_AMI } } } } },
  },
};
const context: ClusterBootContext = {
  stream,
  releaseVersion: "4.22.3",
  history: [{ version: "4.22.3", state: "Completed" }],
  platform: "AWS",
  machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
  release: "4.22.3",
};
const machineSet = (ami: string, arch?: string): MachineSetInput => ({
  name: "worker-a",
  annotations: arch ? { "capacity.cluster-autoscaler.kubernetes.io/labels": `kubernetes.io/arch=${arch}` } : undefined,
  providerSpec: { kind: "AWSMachineProviderConfig", ami: { id: ami }, placement: { region: "us-east-1" } },
});
const decide = (ms: MachineSetInput) => mcoDecision(ms, resolveBootImage(ms, { ...context, stream: null }).reference, context);

describe("platform_helpers.go reconcileAWSProviderSpec (release-4.22): AllowedAMIs decides", () => {
  it("the data is the MCO's list, with its source commit", () => {
    expect(list.source).toMatchObject({
      repository: "openshift/machine-config-operator",
      branch: "release-4.22",
      commit: "9027c94cde45f82a2421b49fca261e9e20ce6310",
      path: "pkg/controller/bootimage/ami.go",
    });
    expect(list.count).toBe(9573);
    expect(list.has(published) && list.has(alsoPublished)).toBe(true);
    expect(allowedAmisFor("4.23")).toBeNull();
  });

  it("a published AMI outside every stream Fleetskew has seen is updated, and the list is named", () => {
    expect(decide(machineSet(published))).toMatchObject({
      action: "update",
      amiList: expect.stringContaining("release-4.22's AllowedAMIs"),
    });
  });

  it("an arm64 MachineSet still on the x86_64 stream's AMI is skipped when that AMI is not in the list, though a stream names it", () => {
    expect(decide(machineSet(X86_STREAM_AMI, "arm64"))).toMatchObject({
      action: "skip",
      basis: "observed",
      reason: expect.stringMatching(/^ami-0badc0ffee0ddf00d is not in release-4\.22's AllowedAMIs .*, so the 4\.22 MCO skips it$/),
    });
  });

  it("the AMI the stream names for the MachineSet's own architecture is current, list or not", () => {
    expect(decide(machineSet(ARM_STREAM_AMI, "arm64")).action).toBe("update");
  });
});
