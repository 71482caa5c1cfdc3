import { atLeast } from "./version";

/**
 * `CheckBootImagePlatform` (pkg/controller/common/featuregates.go) as each release line has it, with
 * the features gates it consults at their default (openshift/api features/features.go per
 * release-4.x): GCP from 4.17, AWS from 4.18, vSphere and Azure from 4.21 (Azure Stack Hub never);
 * on by default for AWS and GCP from 4.19 (pkg/operator/sync.go `isDefaultOnBootImageUpdatePlatform`
 * in 4.19–4.20), for vSphere and Azure from 4.22.
 */
export type Infrastructure = {
  status?: { platform?: string; platformStatus?: { type?: string; azure?: { cloudName?: string } } };
};

export type PlatformSupport = { supported: boolean; cpmsSupported: boolean; enabledByDefault: boolean };

export function checkBootImagePlatform(infra: Infrastructure | null, release: string): PlatformSupport {
  const type = infra?.status?.platformStatus?.type ?? infra?.status?.platform;
  const no: PlatformSupport = { supported: false, cpmsSupported: false, enabledByDefault: false };
  switch (type) {
    case "AWS":
      return { supported: atLeast(release, 18), cpmsSupported: atLeast(release, 21), enabledByDefault: atLeast(release, 19) };
    case "GCP":
      return { supported: atLeast(release, 17), cpmsSupported: atLeast(release, 21), enabledByDefault: atLeast(release, 19) };
    case "VSphere":
      return { supported: atLeast(release, 21), cpmsSupported: false, enabledByDefault: atLeast(release, 22) };
    case "Azure":
      // AzureStackCloud boot images are defined at install time.
      if (infra?.status?.platformStatus?.azure?.cloudName === "AzureStackCloud") return no;
      return { supported: atLeast(release, 21), cpmsSupported: atLeast(release, 21), enabledByDefault: atLeast(release, 22) };
    default:
      return no;
  }
}

/** From 4.19 the operator writes managedBootImagesStatus and the controller enrols by it; before, by the spec. */
export const enrolsByStatus = (release: string) => atLeast(release, 19);
