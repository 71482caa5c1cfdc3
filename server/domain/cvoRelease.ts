import { parseOcpVersion, type Version } from "./versions";

/**
 * Which cluster-version operator a reading or a prediction follows, as mcoRelease.ts does for the MCO
 * (docs/openshift.md §20.5 has the table, with the upstream commits):
 * - "4.22": openshift/cluster-version-operator release-4.22. `Upgradeable` comes from the checks of
 *   pkg/cvo/upgradeable.go, with `Upgradeable…` sub-conditions beside it when several fail; admin
 *   gates match the current minor alone. Earlier releases follow it.
 * - "4.23": release-4.23, which release-5.0 and main keep unchanged for everything here. `Upgradeable`
 *   is built from risk sources (pkg/risk/{updating,overrides,deletion,adminack,upgradeable},
 *   pkg/cvo/status.go `setUpgradeableCondition`) whatever the feature gates, with no sub-conditions;
 *   admin gates match major and minor.
 * The CVO that writes a cluster's conditions is the one of the release it runs, so a cluster is read
 * by its current version (an unknown version reads as 4.22, the line every older cluster follows).
 */
export type CvoRelease = "4.22" | "4.23";

export const CVO_RELEASES: Record<CvoRelease, { branch: string; commit: string; alsoAt?: string }> = {
  "4.22": { branch: "release-4.22", commit: "9b55234a27cf" },
  "4.23": { branch: "release-4.23", commit: "aad19c11058a", alsoAt: "release-5.0 and main at 6e719331fb58" },
};

export function cvoReleaseFor(version: string | Version | null | undefined): CvoRelease {
  const v = typeof version === "string" || version == null ? parseOcpVersion(version) : version;
  return v && (v.major > 4 || (v.major === 4 && v.minor >= 23)) ? "4.23" : "4.22";
}

/** How a reading names the CVO it follows, e.g. "the 4.23 CVO (release-4.23 at aad19c11058a)". */
export const describeCvoRelease = (r: CvoRelease) => `the ${r} CVO (${CVO_RELEASES[r].branch} at ${CVO_RELEASES[r].commit})`;
