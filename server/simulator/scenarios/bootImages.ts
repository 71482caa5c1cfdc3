import ALLOWED_AMIS_RELEASE_4_22 from "../../../data/mco/allowed-amis-release-4.22.json";
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

/**
 * The simulated installer publishes real RHCOS AMI IDs: each build and region gets its own AMI from the
 * MCO's compiled AllowedAMIs (data/mco, read from openshift/machine-config-operator release-4.22
 * ami.go), chosen by a stable hash and never the same for two, so the simulated MCO at 4.22 recognises
 * them as the real one would recognise published AMIs.
 */
/** The reference cluster's own AMIs (its 4.12.7 install AMI and its 4.19 stream, in the fixture files). */
const REFERENCE_AMIS = [
  "ami-01b0a1a972deefb6a",
  "ami-0422676091bb78731",
  "ami-069ec2a719a2f0241",
  "ami-0902e1fef48a3c3f6",
  "ami-0b97f7bd61c1ecd0b",
  "ami-0e1f7f148cda4206a",
];

const WORLD_AMIS: ReadonlyMap<string, string> = (() => {
  const amis = ALLOWED_AMIS_RELEASE_4_22.amis;
  const taken = new Set<string>(REFERENCE_AMIS);
  const out = new Map<string, string>();
  for (const build of Object.values(BOOT_IMAGE_BUILDS))
    for (const region of AWS_REGIONS) {
      let i = parseInt(hexOf(`${build}/${region}`, 8), 16) % amis.length;
      while (taken.has(amis[i]!)) i = (i + 1) % amis.length;
      taken.add(amis[i]!);
      out.set(`${build}/${region}`, amis[i]!);
    }
  return out;
})();

export const amiFor = (build: string, region: string) => WORLD_AMIS.get(`${build}/${region}`) ?? `ami-0${hexOf(`${build}/${region}`, 16)}`;
export const gcpImageFor = (build: string) => `rhcos-${build.replace(/\./g, "-")}-gcp-x86-64`;
/** Azure marketplace versions encode the build: 412.86.202301311551-0 → 412.86.20230131. */
export const azureVersionFor = (build: string) => {
  const [a, b, c] = build.split(".");
  return `${a}.${b}.${c!.slice(0, 8)}`;
};

/**
 * Every RHCOS AMI the simulated world's installer ever published: the builds above in every region,
 * and the reference cluster's own (its 4.12.7 install AMI and its 4.19 stream, in the fixture files).
 * All are real RHCOS AMI IDs from the MCO's AllowedAMIs. The simulated cloud reports Red Hat as
 * their owner, which is what release-4.23 and later check; release-4.22 checks the compiled list
 * itself (mco/bootImageController.ts). Any other AMI is a custom one.
 */
export const PUBLISHED_AMIS: ReadonlySet<string> = new Set([
  ...Object.values(BOOT_IMAGE_BUILDS).flatMap((build) => AWS_REGIONS.map((region) => amiFor(build, region))),
  ...REFERENCE_AMIS,
]);

/** An AMI nobody published: a site's own hardened or encrypted copy, which the MCO does not update. */
export const customAmiFor = (cluster: string) => `ami-0${hexOf(`${cluster}/custom`, 16)}`;
