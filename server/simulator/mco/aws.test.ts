import { describe, expect, it } from "vitest";
import { AWS_MARKETPLACE_OWNER_ID, CLUSTER_ACCOUNT_OWNER_ID, ec2ClientFor, RED_HAT_RHCOS_OWNER_ID, type SimEc2 } from "../ec2";
import { INSTALL_MARKETPLACE_AMIS, MARKETPLACE_CATALOG, MARKETPLACE_PRODUCTS, marketplaceImage } from "../scenarios/marketplace";
import {
  cmpRHCOSVersion,
  detectAMIKind,
  extractProductID,
  extractVersionFromDescription,
  findMarketplaceAMI,
  marketplaceVersionToken,
  ROSA_PRODUCT_ID,
} from "./aws";
import { syncBootImages, type ControllerInputs } from "./bootImageController";
import { machineConfigUpgradeable } from "./upgradeable";

/*
 * The simulated boot image controller on AWS from release-4.23, by openshift/machine-config-operator
 * release-4.23 at d20efd9b9bdb: pkg/controller/bootimage/aws_helpers.go (detectAMIKind,
 * extractProductID, describeAMI, getAWSEC2Client, marketplaceVersionToken, findMarketplaceAMI,
 * cmpRHCOSVersion), platform_helpers.go reconcileAWSProviderSpec, ms_helpers.go syncMAPIMachineSets
 * (the oldest rhcosVersion) and boot_image_controller.go updateClusterBootImage.
 */
const NOW = "2026-11-27T00:00:00Z";
const REGION = "us-east-1";
const STREAM_AMI = "ami-0422676091bb78731"; // a published RHCOS AMI (scenarios/bootImages.ts)
const OLD_PUBLISHED = "ami-01b0a1a972deefb6a";
const { ocpX86_64, okeX86_64 } = MARKETPLACE_PRODUCTS;
const stream = {
  stream: "rhcos-4.23",
  architectures: {
    x86_64: {
      artifacts: { aws: { release: "9.6.20250701-0" } },
      images: { aws: { regions: { [REGION]: { release: "9.6.20250701-0", image: STREAM_AMI } } } },
    },
  },
};
const machineSet = (name: string, ami: string | undefined, region = REGION) => ({
  metadata: { name, namespace: "openshift-machine-api" },
  spec: { template: { spec: { providerSpec: { value: { ami: ami ? { id: ami } : { arn: "arn:aws:ec2:x" }, placement: { region } } } } } },
});
const MARKETPLACE_CATALOG_EC2: SimEc2 = { images: MARKETPLACE_CATALOG };
const catalogAmi = (product: string, release: string) =>
  MARKETPLACE_CATALOG.find((i) => i.name!.endsWith(product) && i.description!.includes(` ${release} `))!.imageId;

function pass(machineSets: unknown[], ec2: SimEc2 | undefined, release = "4.23.1", streamData: unknown = stream) {
  const input: ControllerInputs = {
    release,
    machineConfiguration: {
      status: {
        managedBootImagesStatus: {
          machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }],
        },
        bootImageSkewEnforcementStatus: { mode: "Automatic", automatic: { ocpVersion: "4.12.7" } },
      },
    },
    machineSets: machineSets as never,
    configMap: { data: { stream: JSON.stringify(streamData), releaseVersion: release } },
    infra: { status: { platformStatus: { type: "AWS" } } } as never,
    clusterVersion: { status: { history: [{ state: "Completed", version: release }], desired: {} } },
    controlPlaneArch: "amd64",
    publishedAmis: new Set([STREAM_AMI, OLD_PUBLISHED]),
    ec2,
    skewEnforcement: true,
    reason: "MAPIMachineSetUpdated",
    now: NOW,
  };
  return syncBootImages(input, "4.12.7");
}
const amiOf = (ms: any) => ms.spec.template.spec.providerSpec.value.ami;

describe("aws_helpers.go in the simulated MCO", () => {
  it("extractProductID: the trailing UUID of the AMI name, or nothing", () => {
    expect(extractProductID(`RHEL-9.4-RHCOS-9.6_HVM_GA-20260210-x86_64-0-${ocpX86_64}`)).toBe(ocpX86_64);
    expect(extractProductID("rhcos-9.6.20250701-0-x86_64")).toBe("");
    expect(extractProductID("a-b-c-d")).toBe("");
  });

  it("detectAMIKind: Red Hat's account is standard, AWS Marketplace's is marketplace or ROSA by product, anything else unknown", () => {
    const image = (ownerId: string, name: string) => ({ imageId: "ami-1", ownerId, name, region: REGION });
    expect(detectAMIKind(image(RED_HAT_RHCOS_OWNER_ID, "rhcos"))).toEqual({ kind: "standard", productId: "" });
    expect(detectAMIKind(image(AWS_MARKETPLACE_OWNER_ID, `x-${okeX86_64}`))).toEqual({ kind: "marketplace", productId: okeX86_64 });
    expect(detectAMIKind(image(AWS_MARKETPLACE_OWNER_ID, `rhcos-${ROSA_PRODUCT_ID}`))).toEqual({
      kind: "rosa",
      productId: ROSA_PRODUCT_ID,
    });
    expect(detectAMIKind(image(AWS_MARKETPLACE_OWNER_ID, "no-product-here"))).toEqual({ kind: "unknown", productId: "" });
    expect(detectAMIKind(image(CLUSTER_ACCOUNT_OWNER_ID, `x-${ocpX86_64}`))).toEqual({ kind: "unknown", productId: "" });
  });

  it("marketplaceVersionToken, extractVersionFromDescription and cmpRHCOSVersion compare major.minor only", () => {
    expect(marketplaceVersionToken("9.6.20260210-0")).toBe("9.6");
    expect(() => marketplaceVersionToken("")).toThrow("RHCOS release string is empty");
    expect(() => marketplaceVersionToken("96")).toThrow('unexpected RHCOS release string format: "96"');
    expect(extractVersionFromDescription("RHEL CoreOS 9.6 9.6.20260210-0 x86_64")).toEqual({ fullVersion: "9.6.20260210-0", token: "9.6" });
    expect(extractVersionFromDescription("rhcos-9.6.20250701-0-x86_64")).toEqual({ fullVersion: "9.6.20250701-0", token: "9.6" });
    expect(extractVersionFromDescription("no version")).toBeNull();
    expect(cmpRHCOSVersion("9.6.20250701-0", "9.6.20260120-0")).toBe(0);
    expect(cmpRHCOSVersion("9.4.20250101-0", "9.6.20250701-0")).toBeLessThan(0);
    expect(cmpRHCOSVersion("10.0.20260101-0", "9.6.20250701-0")).toBeGreaterThan(0);
  });

  it("findMarketplaceAMI: the highest version at or below the token, newest first; none (or only pre-4.19 builds) → nothing", () => {
    const client = ec2ClientFor({ images: MARKETPLACE_CATALOG }, new Set(), REGION);
    expect(findMarketplaceAMI(client, ocpX86_64, "9.6")).toEqual({
      ami: catalogAmi(ocpX86_64, "9.6.20260120-0"),
      rhcosVersion: "9.6.20260120-0",
    });
    expect(findMarketplaceAMI(client, ocpX86_64, "9.8")).toEqual({
      ami: catalogAmi(ocpX86_64, "9.8.20260901-0"),
      rhcosVersion: "9.8.20260901-0",
    });
    const legacyOnly = ec2ClientFor({ images: [INSTALL_MARKETPLACE_AMIS.oke] }, new Set(), REGION);
    expect(findMarketplaceAMI(legacyOnly, okeX86_64, "9.6")).toBeNull();
    // Another region lists none of them.
    expect(findMarketplaceAMI(ec2ClientFor({ images: MARKETPLACE_CATALOG }, new Set(), "eu-west-1"), ocpX86_64, "9.6")).toBeNull();
    const refused = ec2ClientFor({ describeImagesError: { statusCode: 503, code: "Unavailable", message: "down" } }, new Set(), REGION);
    expect(() => findMarketplaceAMI(refused, ocpX86_64, "9.6")).toThrow(
      `DescribeImages failed for product ID ${ocpX86_64}: operation error EC2: DescribeImages, https response error StatusCode: 503, RequestID: `,
    );
  });
});

describe("reconcileAWSProviderSpec from release-4.23 in the simulated controller", () => {
  const mp = (name: string, image = INSTALL_MARKETPLACE_AMIS.ocp) => machineSet(name, image.imageId);

  it("marketplace MachineSets get their product's AMI; the record is the oldest rhcosVersion (updateClusterBootImage)", () => {
    const older = marketplaceImage(okeX86_64, "9.4.20250101-0", REGION, "2025-01-10T00:00:00.000Z");
    const result = pass([mp("ocp"), mp("oke", INSTALL_MARKETPLACE_AMIS.oke), machineSet("std", OLD_PUBLISHED)], {
      images: [...MARKETPLACE_CATALOG.filter((i) => !(i.name!.endsWith(okeX86_64) && i.description!.includes("9.6."))), older],
    });
    expect(result.outcomes.map((o) => o.outcome)).toEqual(["patched", "patched", "patched"]);
    expect(result.machineSets.map(amiOf)).toEqual([
      { id: catalogAmi(ocpX86_64, "9.6.20260120-0") },
      { id: older.imageId },
      { id: STREAM_AMI },
    ]);
    expect(result.record).toEqual({ action: "update", rhcosVersion: "9.4.20250101-0" });
  });

  it("a marketplace MachineSet already on its AMI is current and still counts for the record; equal major.minor keeps the first", () => {
    const result = pass(
      [mp("oke", INSTALL_MARKETPLACE_AMIS.oke), machineSet("ocp-now", catalogAmi(ocpX86_64, "9.6.20260120-0"))],
      MARKETPLACE_CATALOG_EC2,
    );
    expect(result.outcomes.map((o) => o.outcome)).toEqual(["patched", "current"]);
    expect(result.record).toEqual({ action: "update", rhcosVersion: "9.6.20250701-0" });
  });

  it("no marketplace AMI at or below the stream's version in the region → skipped, and the record is reset to the install version", () => {
    const result = pass([mp("ocp")], {
      images: [INSTALL_MARKETPLACE_AMIS.ocp, marketplaceImage(ocpX86_64, "9.8.20260901-0", REGION, "2026-09-10T00:00:00.000Z")],
    });
    expect(result.outcomes).toEqual([{ name: "ocp", outcome: "skipped" }]);
    expect(result.record).toEqual({ action: "reset", ocpVersion: "4.12.7" });
  });

  it("without an ec2 description: published AMIs are Red Hat's and updated, others the cluster's own and skipped, ARNs skipped", () => {
    const result = pass(
      [machineSet("std", OLD_PUBLISHED), machineSet("copy", "ami-0aaaaaaaaaaaaaaaa"), machineSet("arn", undefined)],
      undefined,
    );
    expect(result.outcomes.map((o) => o.outcome)).toEqual(["patched", "skipped", "skipped"]);
    expect(result.record).toEqual({ action: "reset", ocpVersion: "4.12.7" });
  });

  it("a stream without the architecture's aws artifact: an error for a marketplace MachineSet", () => {
    const noArtifact = { stream: "rhcos-4.23", architectures: { x86_64: { images: stream.architectures.x86_64.images } } };
    const result = pass([mp("ocp")], MARKETPLACE_CATALOG_EC2, "4.23.1", noArtifact);
    expect(result.outcomes[0]!.error).toBe(
      "error syncing MAPI MachineSet ocp: failed to reconcile machineset ocp, err: MachineSet ocp: no aws artifact in stream for arch x86_64",
    );
  });

  const failures: [string, SimEc2, (ami: string) => string][] = [
    ["an AMI EC2 cannot describe", { missingImages: [OLD_PUBLISHED] }, (ami) => `AMI ${ami} not found`],
    [
      "no aws-cloud-credentials Secret",
      { credentials: "missing" },
      () => 'failed to fetch aws-cloud-credentials secret: secrets "aws-cloud-credentials" not found',
    ],
    [
      "a Secret with neither kind of credentials",
      { credentials: "empty" },
      () =>
        "aws-cloud-credentials secret contains neither static credentials (aws_access_key_id/aws_secret_access_key) nor STS credentials (role_arn/web_identity_token_file)",
    ],
    [
      "DescribeImages refused",
      {
        describeImagesError: {
          statusCode: 403,
          code: "UnauthorizedOperation",
          message: "You are not authorized to perform this operation.",
          requestId: "r-1",
        },
      },
      (ami) =>
        `DescribeImages failed for ${ami}: operation error EC2: DescribeImages, https response error StatusCode: 403, RequestID: r-1, api error UnauthorizedOperation: You are not authorized to perform this operation.`,
    ],
  ];
  it.each(failures)("%s is an error that degrades the controller and, in Automatic mode, blocks upgrades", (_label, ec2, words) => {
    const result = pass([machineSet("std", OLD_PUBLISHED)], ec2);
    const error = `error syncing MAPI MachineSet std: failed to reconcile machineset std, err: ${words(OLD_PUBLISHED)}`;
    expect(result.outcomes).toEqual([{ name: "std", outcome: "error", error }]);
    expect(result.record).toBeNull();
    const degraded = result.conditions.find((c) => c.type === "BootImageUpdateDegraded")!;
    expect(degraded).toMatchObject({
      status: "True",
      message: `1 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments | Error(s): ${error}`,
    });
    const mc = {
      status: { bootImageSkewEnforcementStatus: { mode: "Automatic", automatic: { ocpVersion: "4.22.0" } }, conditions: result.conditions },
    };
    expect(machineConfigUpgradeable("4.23.1", true, mc, [{ version: "4.23.1", state: "Completed" }], [])).toEqual({
      type: "Upgradeable",
      status: "False",
      reason: "ClusterBootImageSkewError",
      message: `Upgrades have been disabled due to boot image update failures: boot image controller is degraded: ${degraded.message}`,
    });
  });

  it("an ami.id unset is skipped before EC2 is asked, so missing credentials do not matter", () => {
    expect(pass([machineSet("arn", undefined)], { credentials: "missing" }).outcomes).toEqual([{ name: "arn", outcome: "skipped" }]);
  });

  it("release-4.22 is unchanged: its AllowedAMIs decide, EC2 is never asked, marketplace AMIs are skipped", () => {
    const result = pass([mp("ocp"), machineSet("std", OLD_PUBLISHED)], { credentials: "missing", images: MARKETPLACE_CATALOG }, "4.22.3");
    expect(result.outcomes.map((o) => o.outcome)).toEqual(["skipped", "patched"]);
    expect(result.record).toEqual({ action: "reset", ocpVersion: "4.12.7" });
  });
});
