import type { ClusterSpec } from "../cluster";
import { cvoInputsOf, withCvoUpgradeable } from "../cvo";
import { AWS_MARKETPLACE_OWNER_ID, type Ec2Image, type SimEc2 } from "../ec2";
import { reconcileMachineConfigUpgradeable, reconcileMachineConfiguration } from "../mco";
import type { KubeObject } from "../objectStore";
import { moveClusterVersion, prodEast422Objects } from "./prodEast";
import { iso } from "./plan";
import { hexOf } from "./random";
import { arrayView } from "./settle";

/**
 * AWS Marketplace boot images at 4.23 (docs/simulator.md "EC2"; docs/openshift.md §15.4): prod-east
 * (installed 4.12.7) whose workers boot from AWS Marketplace RHCOS AMIs — the OCP and OKE x86_64
 * listings — beside one on a published Red Hat AMI and infra on the stream's own, every MachineSet
 * managed by the MCO (the AWS default, All) and skew enforcement Automatic.
 *
 * `marketplace422Objects`: at 4.22.3 as the release-4.22 MCO's pass left it (made by the simulated
 * MCO itself): its compiled AllowedAMIs decide, so it updated the published AMI, skipped the
 * Marketplace ones and reset the record to the install version 4.12.7 — below the 4.13.0 limit, so
 * machine-config is Upgradeable=False and the minor update to 4.23 is blocked.
 * `marketplace423Objects`: the same after the update to 4.23.1 was forced past that block
 * (`desiredUpdate.force`; the CVO's sync_worker.go forces past precondition failures), before the
 * 4.23 MCO's first pass: the first write, or the reconciler, runs it, and that MCO asks EC2
 * (`MARKETPLACE_EC2`, or `EC2_UNAUTHORIZED`) who owns each AMI.
 */

/** aws_helpers.go `marketplaceProductNames` (release-4.23 d20efd9b9bdb): two of the x86_64 listings. */
export const MARKETPLACE_PRODUCTS = {
  ocpX86_64: "59ead7de-2540-4653-a8b0-fa7926d5c845",
  okeX86_64: "963b36c3-de6f-48ed-b802-2b38b2a2cdeb",
} as const;

/**
 * A marketplace AMI as EC2 describes it: owned by AWS Marketplace, the name ending in the product ID
 * (`RHEL-9.4-RHCOS-9.6_HVM_GA-20260210-x86_64-0-<product>`, the form aws_helpers.go `extractProductID`
 * documents), the description embedding the RHCOS release (`RHEL CoreOS 9.6 9.6.20260210-0 x86_64`,
 * `descriptionVersionRe`). A pre-4.19 build ("412.86.…") has the same shape with its own release.
 */
export function marketplaceImage(product: string, release: string, region: string, creationDate: string): Ec2Image {
  const [major, minor, stamp] = release.split(".");
  const date = stamp!.slice(0, 8);
  return {
    imageId: `ami-0${hexOf(`marketplace/${product}/${release}/${region}`, 16)}`,
    ownerId: AWS_MARKETPLACE_OWNER_ID,
    name: `RHEL-${major}.${minor}-RHCOS-${major}.${minor}_HVM_GA-${date}-x86_64-0-${product}`,
    description: `RHEL CoreOS ${major}.${minor} ${release} x86_64`,
    creationDate,
    region,
  };
}

const REGION = "us-east-1";
const { ocpX86_64, okeX86_64 } = MARKETPLACE_PRODUCTS;

/** The Marketplace AMIs the workers were created from (4.12.7's RHCOS). */
export const INSTALL_MARKETPLACE_AMIS = {
  ocp: marketplaceImage(ocpX86_64, "412.86.202301311551-0", REGION, "2023-02-08T10:00:00.000Z"),
  oke: marketplaceImage(okeX86_64, "412.86.202301311551-0", REGION, "2023-02-08T10:00:00.000Z"),
};

/**
 * What EC2 lists in us-east-1 for the two products: OCP has 9.6 builds of July 2025 and January 2026
 * and a 9.8 build (ahead of the stream's 9.6, so findMarketplaceAMI passes it over); OKE only July 2025.
 */
export const MARKETPLACE_CATALOG: Ec2Image[] = [
  INSTALL_MARKETPLACE_AMIS.ocp,
  INSTALL_MARKETPLACE_AMIS.oke,
  marketplaceImage(ocpX86_64, "9.6.20250701-0", REGION, "2025-07-10T09:00:00.000Z"),
  marketplaceImage(ocpX86_64, "9.6.20260120-0", REGION, "2026-01-28T09:00:00.000Z"),
  marketplaceImage(ocpX86_64, "9.8.20260901-0", REGION, "2026-09-10T09:00:00.000Z"),
  marketplaceImage(okeX86_64, "9.6.20250701-0", REGION, "2025-07-10T09:00:00.000Z"),
];

/** The simulated cloud of the marketplace scenario: EC2 describes the Marketplace AMIs above; credentials work. */
export const MARKETPLACE_EC2: SimEc2 = { images: MARKETPLACE_CATALOG };

/** The same cloud where the credentials lack ec2:DescribeImages: every call is refused. */
export const EC2_UNAUTHORIZED: SimEc2 = {
  images: MARKETPLACE_CATALOG,
  describeImagesError: { statusCode: 403, code: "UnauthorizedOperation", message: "You are not authorized to perform this operation." },
};

type Any = Record<string, any>;
const MS = "prod-east-7xk2p-worker-us-east-1";

/** The cluster at 4.22.3, as the release-4.22 MCO's last pass left it (Upgradeable=False: install version 4.12.7). */
export function marketplace422Objects(): KubeObject[] {
  const objects = prodEast422Objects().map((o) => {
    if (o.kind === "MachineSet" && (o.metadata.name === `${MS}a` || o.metadata.name === `${MS}b`)) {
      const ms = structuredClone(o) as Any;
      const image = o.metadata.name === `${MS}a` ? INSTALL_MARKETPLACE_AMIS.ocp : INSTALL_MARKETPLACE_AMIS.oke;
      ms.spec.template.spec.providerSpec.value.ami = { id: image.imageId };
      return ms as KubeObject;
    }
    if (o.kind === "MachineConfiguration") {
      // No admin choice: the MCO manages every AWS MachineSet (All) and enforces skew Automatically.
      const { managedBootImages: _m, ...spec } = (o as Any).spec;
      const { managedBootImagesStatus: _s, bootImageSkewEnforcementStatus: _e, ...status } = (o as Any).status;
      return { ...o, spec, status } as KubeObject;
    }
    return o;
  });
  // The release-4.22 MCO's last pass, at 4.22.3 (its AllowedAMIs decide; EC2 is not asked).
  const cv = objects.find((o) => o.kind === "ClusterVersion") as Any;
  const at = new Date(Date.parse(cv.status.history[0].completionTime) + 3_600_000);
  const view = arrayView(objects, "4.22.3", at, true);
  reconcileMachineConfiguration(view, "ClusterVersionStable");
  reconcileMachineConfigUpgradeable(view);
  const cvObject = objects.find((o) => o.kind === "ClusterVersion") as Any;
  cvObject.status.conditions = withCvoUpgradeable(cvObject.status.conditions, cvoInputsOf(objects), iso(at));
  return objects;
}

/** The same cluster after the update to 4.23.1 was forced past Upgradeable=False, before the 4.23 MCO's first pass. */
export function marketplace423Objects(): KubeObject[] {
  const objects = marketplace422Objects();
  return objects.map((o): KubeObject => {
    if (o.kind === "ClusterVersion") {
      const moved = moveClusterVersion(o, ["4.23.1"]) as Any;
      moved.spec.desiredUpdate = { ...moved.spec.desiredUpdate, version: "4.23.1", force: true };
      moved.status.conditions = withCvoUpgradeable(moved.status.conditions, cvoInputsOf(objects), moved.status.history[0].completionTime);
      return moved as KubeObject;
    }
    if (o.kind === "ConfigMap" && o.metadata.name === "coreos-bootimages") {
      const cm = structuredClone(o) as Any;
      cm.data.releaseVersion = "4.23.1";
      cm.data.MCOReleaseImageVersion = "4.23.1";
      return cm as KubeObject;
    }
    if (o.kind === "ClusterOperator" && o.metadata.name === "machine-config") {
      const co = structuredClone(o) as Any;
      co.status.versions = [{ name: "operator", version: "4.23.1" }];
      return co as KubeObject;
    }
    return o;
  });
}

/** Cluster specs for tests: the cluster at 4.22.3 and at 4.23.1, and at 4.23.1 where EC2 refuses the MCO. Not in the demo fleet. */
export function marketplaceClusterSpecs(): ClusterSpec[] {
  return [
    {
      name: "marketplace-422",
      ocpVersion: "4.22.3",
      token: "m2-token",
      readOnlyToken: "m2-reader",
      ec2: MARKETPLACE_EC2,
      objects: marketplace422Objects,
    },
    {
      name: "marketplace-423",
      ocpVersion: "4.23.1",
      token: "mp-token",
      readOnlyToken: "mp-reader",
      ec2: MARKETPLACE_EC2,
      objects: marketplace423Objects,
    },
    {
      name: "ec2-denied-423",
      ocpVersion: "4.23.1",
      token: "ed-token",
      readOnlyToken: "ed-reader",
      ec2: EC2_UNAUTHORIZED,
      objects: marketplace423Objects,
    },
  ];
}
