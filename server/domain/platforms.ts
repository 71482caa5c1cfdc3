/**
 * Where the MCO manages MachineSet boot images, by release (docs/openshift.md §14): supported, and on
 * by default. From 4.21 the MCO's `CheckBootImagePlatform` (pkg/controller/common/featuregates.go)
 * refuses Azure Stack Hub (Infrastructure status.platformStatus.azure.cloudName AzureStackCloud),
 * whose boot images are fixed at install time; before 4.21 Azure is not supported at all.
 */
export const AZURE_STACK_CLOUD = "AzureStackCloud";

const azureStackHub = (platform: string | null, azureCloudName: string | null | undefined) =>
  platform === "Azure" && azureCloudName === AZURE_STACK_CLOUD;

export function bootImagesSupported(platform: string | null, minor: number, azureCloudName?: string | null): boolean {
  if (azureStackHub(platform, azureCloudName)) return false;
  if (platform === "GCP") return minor >= 17;
  if (platform === "AWS") return minor >= 18;
  if (platform === "VSphere" || platform === "Azure") return minor >= 21;
  return false;
}

export function bootImagesDefaultOn(platform: string | null, minor: number, azureCloudName?: string | null): boolean {
  if (azureStackHub(platform, azureCloudName)) return false;
  if (platform === "AWS" || platform === "GCP") return minor >= 19;
  if (platform === "VSphere" || platform === "Azure") return minor >= 22;
  return false;
}
