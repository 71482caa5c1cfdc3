import {
  Ec2CallError,
  ec2ClientFor,
  AWS_MARKETPLACE_OWNER_ALIAS,
  AWS_MARKETPLACE_OWNER_ID,
  RED_HAT_RHCOS_OWNER_ID,
  type Ec2Client,
  type Ec2Image,
  type SimEc2,
} from "../ec2";

/**
 * The AWS rules of the MCO's boot image controller from release-4.23 (openshift/machine-config-operator
 * release-4.23 at d20efd9b9bdb, the branch head when read: pkg/controller/bootimage/aws_helpers.go and
 * platform_helpers.go `reconcileAWSProviderSpec`). Every AMI is described by EC2 and its owner decides.
 * Pure over the simulated EC2 (../ec2.ts).
 */
type Any = Record<string, any>;

/** aws_helpers.go `rosaProductID`: ROSA Classic's marketplace product. */
export const ROSA_PRODUCT_ID = "34850061-abaf-402d-92df-94325c9e947f";

/** An error `reconcileAWSProviderSpec` returns; `syncMAPIMachineSet` wraps it as "failed to reconcile machineset …". */
export class AwsReconcileError extends Error {}

export type AmiKind = "unknown" | "standard" | "marketplace" | "rosa";

const PRODUCT_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** `extractProductID`: the trailing UUID of a marketplace AMI's name, or "". */
export function extractProductID(name: string): string {
  const parts = name.split("-");
  if (parts.length < 5) return "";
  const candidate = parts.slice(-5).join("-");
  return PRODUCT_ID.test(candidate) ? candidate : "";
}

/** `detectAMIKind`: by OwnerId; a marketplace AMI without a product ID in its name is unknown. */
export function detectAMIKind(image: Ec2Image): { kind: AmiKind; productId: string } {
  switch (image.ownerId) {
    case RED_HAT_RHCOS_OWNER_ID:
      return { kind: "standard", productId: "" };
    case AWS_MARKETPLACE_OWNER_ID: {
      const productId = extractProductID(image.name ?? "");
      if (productId === "") return { kind: "unknown", productId: "" };
      return { kind: productId === ROSA_PRODUCT_ID ? "rosa" : "marketplace", productId };
    }
    default:
      return { kind: "unknown", productId: "" };
  }
}

/** Go's strconv.Atoi as the MCO uses it: errors ignored, so anything but an integer is 0. */
const atoi = (s: string | undefined) => (s !== undefined && /^[+-]?\d+$/.test(s) ? Number(s) : 0);

/** `cmpVersionToken`: "major.minor" tokens compared numerically. */
export function cmpVersionToken(a: string, b: string): number {
  const parse = (s: string): [number, number] => {
    const i = s.indexOf(".");
    return i < 0 ? [0, 0] : [atoi(s.slice(0, i)), atoi(s.slice(i + 1))];
  };
  const [aMaj, aMin] = parse(a);
  const [bMaj, bMin] = parse(b);
  return aMaj !== bMaj ? aMaj - bMaj : aMin - bMin;
}

/** Go's strings.SplitN(s, sep, n). */
function splitN(s: string, sep: string, n: number): string[] {
  const parts = s.split(sep);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

/** `cmpRHCOSVersion`: full RHCOS releases compared by major.minor only ("9.6.20250701-0" equals "9.6.20260120-0"). */
export function cmpRHCOSVersion(a: string, b: string): number {
  const tokenOf = (v: string) => {
    const p = splitN(v, ".", 3);
    return p.length < 2 ? v : `${p[0]}.${p[1]}`;
  };
  return cmpVersionToken(tokenOf(a), tokenOf(b));
}

/** `marketplaceVersionToken`: "9.6.20260210-0" → "9.6". */
export function marketplaceVersionToken(release: string): string {
  if (release === "") throw new AwsReconcileError("RHCOS release string is empty");
  const parts = splitN(release, ".", 3);
  if (parts.length < 2) throw new AwsReconcileError(`unexpected RHCOS release string format: ${JSON.stringify(release)}`);
  return `${parts[0]}.${parts[1]}`;
}

const DESCRIPTION_VERSION = /(\d+\.\d+)\.(?:[0-9]{8}|[0-9]{12})-\d+/;

/** `extractVersionFromDescription`: the full release and its "major.minor" token, or null. */
export function extractVersionFromDescription(description: string): { fullVersion: string; token: string } | null {
  const m = DESCRIPTION_VERSION.exec(description);
  return m ? { fullVersion: m[0], token: m[1]! } : null;
}

/**
 * `findMarketplaceAMI`: the product's AMIs in the region (owner alias aws-marketplace, name
 * `*<product>*`), those whose description's version is at or below the token, highest version first,
 * then newest CreationDate. None → null: the MCO logs and skips the MachineSet (no error).
 */
export function findMarketplaceAMI(
  client: Ec2Client,
  productId: string,
  versionToken: string,
): { ami: string; rhcosVersion: string } | null {
  let images: Ec2Image[];
  try {
    images = client.describeImages({ owners: [AWS_MARKETPLACE_OWNER_ALIAS], nameContains: productId });
  } catch (error) {
    if (error instanceof Ec2CallError) throw new AwsReconcileError(`DescribeImages failed for product ID ${productId}: ${error.message}`);
    throw error;
  }
  const matches = images.flatMap((image) => {
    const v = extractVersionFromDescription(image.description ?? "");
    return v && cmpVersionToken(v.token, versionToken) <= 0 ? [{ image, ...v }] : [];
  });
  // None, or only pre-4.19 ones ("418.94…", `isPreRHELAlignedToken`: a different warning, the same skip).
  if (matches.length === 0) return null;
  const newestFirst = (a: string | undefined, b: string | undefined) => ((b ?? "") > (a ?? "") ? 1 : (b ?? "") < (a ?? "") ? -1 : 0);
  matches.sort((a, b) => cmpVersionToken(b.token, a.token) || newestFirst(a.image.creationDate, b.image.creationDate));
  return { ami: matches[0]!.image.imageId, rhcosVersion: matches[0]!.fullVersion };
}

export type AwsTarget = { ami: string; rhcosVersion: string } | "skip";

/**
 * `reconcileAWSProviderSpec` from release-4.23, up to the new AMI: `ami.id` unset → skip; the EC2
 * client (credentials) and `describeAMI` — failures are errors; then by kind: standard → the stream's
 * AMI for the region (none → skip); marketplace and ROSA → `resolveMarketplaceAMI` (none → skip);
 * unknown → skip. The caller compares with the current AMI.
 */
export function awsTarget423(
  value: Any,
  arch: string,
  stream: Any | null,
  ec2: SimEc2 | undefined,
  published: ReadonlySet<string>,
  machineSetName: string,
  noArchitecture: (arch: string) => string,
): AwsTarget {
  const region: string = value.placement?.region ?? "";
  const current: string | undefined = value.ami?.id ?? undefined;
  if (current === undefined) return "skip";
  let image: Ec2Image;
  let client: Ec2Client;
  try {
    client = ec2ClientFor(ec2, published, region);
    // describeAMI
    let images: Ec2Image[];
    try {
      images = client.describeImages({ imageIds: [current] });
    } catch (error) {
      if (error instanceof Ec2CallError) throw new Ec2CallError(`DescribeImages failed for ${current}: ${error.message}`);
      throw error;
    }
    if (images.length === 0) throw new Ec2CallError(`AMI ${current} not found`);
    image = images[0]!;
  } catch (error) {
    if (error instanceof Ec2CallError) throw new AwsReconcileError(error.message);
    throw error;
  }
  const { kind, productId } = detectAMIKind(image);
  if (kind === "standard") {
    const target: string | undefined = stream?.architectures?.[arch]?.images?.aws?.regions?.[region]?.image;
    return target ? { ami: target, rhcosVersion: "" } : "skip";
  }
  if (kind === "unknown") return "skip";
  // resolveMarketplaceAMI
  const streamArch = stream?.architectures?.[arch];
  if (!streamArch) throw new AwsReconcileError(noArchitecture(arch));
  const artifact = streamArch.artifacts?.aws;
  if (!artifact) throw new AwsReconcileError(`MachineSet ${machineSetName}: no aws artifact in stream for arch ${arch}`);
  let token: string;
  try {
    token = marketplaceVersionToken(String(artifact.release ?? ""));
  } catch (error) {
    if (error instanceof AwsReconcileError) throw new AwsReconcileError(`MachineSet ${machineSetName}: ${error.message}`);
    throw error;
  }
  return findMarketplaceAMI(client, productId, token) ?? "skip";
}
