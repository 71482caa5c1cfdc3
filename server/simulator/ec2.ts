/**
 * What the simulated cloud's EC2 answers the Machine Config Operator. From release-4.23 the MCO's boot
 * image controller asks EC2 about every AMI a MachineSet boots from (openshift/machine-config-operator
 * release-4.23 d20efd9b9bdb, pkg/controller/bootimage/aws_helpers.go): `getAWSEC2Client` reads the
 * `aws-cloud-credentials` Secret in openshift-machine-api, `describeAMI` calls DescribeImages by
 * image ID, `findMarketplaceAMI` calls it by owner alias `aws-marketplace` and a name filter. The
 * fields below are named after what it reads: the EC2 `Image`'s ImageId, OwnerId, Name, Description
 * and CreationDate (aws-sdk-go-v2 service/ec2/types), and the Secret's keys.
 *
 * A cluster without an `ec2` description behaves as before this existed: AMIs the simulated installer
 * published (scenarios/bootImages.ts PUBLISHED_AMIS) are Red Hat's, any other AMI belongs to the
 * cluster's own AWS account (a site's copy), and the credentials work.
 */

/** aws_helpers.go `awsRHCOSOwnerID`: the Red Hat account that owns standard RHCOS AMIs. */
export const RED_HAT_RHCOS_OWNER_ID = "531415883065";
/** aws_helpers.go `awsMarketplaceOwnerID`: the AWS account that owns all AWS Marketplace AMIs. */
export const AWS_MARKETPLACE_OWNER_ID = "679593333241";
/** aws_helpers.go `awsMarketplaceOwnerAlias`: the owner alias findMarketplaceAMI filters by. */
export const AWS_MARKETPLACE_OWNER_ALIAS = "aws-marketplace";
/** The simulated clusters' own AWS account: owner of any AMI nobody published (a custom or copied AMI). */
export const CLUSTER_ACCOUNT_OWNER_ID = "210987654321";

/** One EC2 image as DescribeImages returns it, in the region it lives in (AMI IDs are regional). */
export type Ec2Image = {
  imageId: string;
  ownerId: string;
  /** Marketplace AMIs end in their product ID: `RHEL-9.4-RHCOS-9.6_HVM_GA-20260210-x86_64-0-<product-id>`. */
  name?: string;
  /** Marketplace AMIs embed the RHCOS release: `RHEL CoreOS 9.6 9.6.20260210-0 x86_64`. */
  description?: string;
  /** ISO 8601, as EC2 reports it; findMarketplaceAMI breaks version ties by it (newest first). */
  creationDate?: string;
  region: string;
};

/** An EC2 API error, as aws-sdk-go-v2 reports it (smithy-go `GenericAPIError` inside the HTTP `ResponseError`). */
export type Ec2ApiError = { statusCode: number; code: string; message: string; requestId?: string };

export type SimEc2 = {
  /** Images EC2 describes, beyond the published RHCOS AMIs and the cluster's own copies it describes anyway. */
  images?: Ec2Image[];
  /** AMI IDs DescribeImages answers with no image (deregistered, or not shared with the cluster's account). */
  missingImages?: string[];
  /** Every DescribeImages call fails with this error (the credentials lack ec2:DescribeImages, throttling, an outage). */
  describeImagesError?: Ec2ApiError;
  /**
   * The `aws-cloud-credentials` Secret in openshift-machine-api: `static` keys (aws_access_key_id /
   * aws_secret_access_key, the default), `sts` (role_arn / web_identity_token_file), `missing` (no
   * Secret), or `empty` (a Secret with neither).
   */
  credentials?: "static" | "sts" | "missing" | "empty";
};

export type DescribeImagesInput = { imageIds: string[] } | { owners: string[]; nameContains: string };

/** An EC2 client for one region: DescribeImages returns the images or throws an `Ec2CallError`. */
export type Ec2Client = { describeImages(input: DescribeImagesInput): Ec2Image[] };

/** What EC2 (or the credentials before it) answered instead of images; `message` is the Go error's text. */
export class Ec2CallError extends Error {}

const DEFAULT_REQUEST_ID = "5d1f6c2e-8a34-4b7e-9c1d-2f0e7a6b3c48";

/** aws-sdk-go-v2 `smithy.OperationError` around `awshttp.ResponseError` around `smithy.GenericAPIError`. */
export function describeImagesErrorText(e: Ec2ApiError): string {
  return `operation error EC2: DescribeImages, https response error StatusCode: ${e.statusCode}, RequestID: ${e.requestId ?? DEFAULT_REQUEST_ID}, api error ${e.code}: ${e.message}`;
}

/**
 * `getAWSEC2Client` (credentials) and the EC2 endpoint of one region. Throws `Ec2CallError` with the
 * MCO's words when the Secret is missing or holds neither kind of credentials.
 */
export function ec2ClientFor(ec2: SimEc2 | undefined, published: ReadonlySet<string>, region: string): Ec2Client {
  const credentials = ec2?.credentials ?? "static";
  if (credentials === "missing")
    // client-go's NotFound for the Secret, wrapped by getAWSEC2Client.
    throw new Ec2CallError('failed to fetch aws-cloud-credentials secret: secrets "aws-cloud-credentials" not found');
  if (credentials === "empty")
    throw new Ec2CallError(
      "aws-cloud-credentials secret contains neither static credentials (aws_access_key_id/aws_secret_access_key) nor STS credentials (role_arn/web_identity_token_file)",
    );
  const listed = (ec2?.images ?? []).filter((i) => i.region === region);
  const missing = new Set(ec2?.missingImages ?? []);
  return {
    describeImages(input) {
      if (ec2?.describeImagesError) throw new Ec2CallError(describeImagesErrorText(ec2.describeImagesError));
      if ("imageIds" in input)
        return input.imageIds.flatMap((id): Ec2Image[] => {
          if (missing.has(id)) return [];
          const image = listed.find((i) => i.imageId === id);
          if (image) return [image];
          if (published.has(id)) return [{ imageId: id, ownerId: RED_HAT_RHCOS_OWNER_ID, name: `rhcos-${id}`, region }];
          return [{ imageId: id, ownerId: CLUSTER_ACCOUNT_OWNER_ID, name: `copy-of-${id}`, region }];
        });
      const owners = new Set(input.owners.map((o) => (o === AWS_MARKETPLACE_OWNER_ALIAS ? AWS_MARKETPLACE_OWNER_ID : o)));
      return listed.filter((i) => owners.has(i.ownerId) && (i.name ?? "").includes(input.nameContains));
    },
  };
}
