/** Where the MCO manages MachineSet boot images (reference §0): supported, and on by default. */
export function bootImagesSupported(platform: string | null, minor: number): boolean {
  if (platform === "GCP") return minor >= 17;
  if (platform === "AWS") return minor >= 18;
  if (platform === "VSphere" || platform === "Azure") return minor >= 21;
  return false;
}

export function bootImagesDefaultOn(platform: string | null, minor: number): boolean {
  if (platform === "AWS" || platform === "GCP") return minor >= 19;
  if (platform === "VSphere" || platform === "Azure") return minor >= 22;
  return false;
}
