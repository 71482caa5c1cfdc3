import { hexOf } from "./random";

/**
 * The RHCOS boot image each OpenShift minor shipped (its x.y.0 installer), in the two naming
 * schemes (reference §3.1). 4.12's matches the reference cluster's install image; 4.19's its stream.
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

export const amiFor = (build: string, region: string) => `ami-0${hexOf(`${build}/${region}`, 16)}`;
export const gcpImageFor = (build: string) => `rhcos-${build.replace(/\./g, "-")}-gcp-x86-64`;
/** Azure marketplace versions encode the build: 412.86.202301311551-0 → 412.86.20230131. */
export const azureVersionFor = (build: string) => {
  const [a, b, c] = build.split(".");
  return `${a}.${b}.${c!.slice(0, 8)}`;
};
