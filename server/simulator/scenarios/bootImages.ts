import { hexOf } from "./random";

/**
 * The RHCOS boot image each OpenShift minor shipped (its x.y.0 installer), in the two naming schemes
 * (docs/openshift.md §18). 4.12's matches the reference cluster's install image; 4.19's its stream.
 */
export const BOOT_IMAGE_BUILDS: Record<number, string> = {
  10: "410.84.202205191234-0",
  11: "411.86.202210041459-0",
  12: "412.86.202301311551-0",
  13: "413.92.202305021736-0",
  14: "414.92.202310210434-0",
  15: "415.92.202402201450-0",
  16: "416.94.202405291527-0",
  17: "417.94.202409121747-0",
  18: "418.94.202501221327-0",
  19: "9.6.20250701-0",
  20: "9.6.20251015-0",
  21: "9.6.20260120-0",
  22: "9.6.20260415-0",
};

/** The AWS regions generated clusters live in, and their streams name AMIs for. */
export const AWS_REGIONS = ["us-east-1", "us-west-2", "eu-central-1", "ap-southeast-2"];

export const amiFor = (build: string, region: string) => `ami-0${hexOf(`${build}/${region}`, 16)}`;
export const gcpImageFor = (build: string) => `rhcos-${build.replace(/\./g, "-")}-gcp-x86-64`;
/** Azure marketplace versions encode the build: 412.86.202301311551-0 → 412.86.20230131. */
export const azureVersionFor = (build: string) => {
  const [a, b, c] = build.split(".");
  return `${a}.${b}.${c!.slice(0, 8)}`;
};

/**
 * Every RHCOS AMI the simulated world's installer ever published: the builds above in every region,
 * and the reference cluster's own (its 4.12.7 install AMI and its 4.19 stream, in the fixture files).
 * The simulated MCO recognises exactly these (release-4.22 compiles the real list into ami.go
 * `AllowedAMIs` from the installer's rhcos.json history); any other AMI is a custom one.
 */
export const PUBLISHED_AMIS: ReadonlySet<string> = new Set([
  ...Object.values(BOOT_IMAGE_BUILDS).flatMap((build) => AWS_REGIONS.map((region) => amiFor(build, region))),
  "ami-0a3f6e9c1b7d24e58",
  "ami-0c5f1a2b3d4e6f708",
  "ami-07e1b94d6a2c3f815",
  "ami-0f4d2a8b6c1e9d370",
  "ami-05b9c3e7a1d4f6028",
  "ami-0d8a3f1c5e7b2a946",
]);

/** An AMI nobody published: a site's own hardened or encrypted copy, which the MCO does not update. */
export const customAmiFor = (cluster: string) => `ami-0${hexOf(`${cluster}/custom`, 16)}`;
