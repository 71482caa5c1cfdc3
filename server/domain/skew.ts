import { compareVersions, formatVersion, minorOf, parseOcpVersion, parseRhcosBuild, type Version } from "./versions";

/**
 * Boot-image skew as the Machine Config Operator decides it (reference §2). The limits are compiled
 * into the MCO, not readable from a cluster, so Fleetskew keeps its own table keyed by the release
 * that enforces them.
 */
export type SkewLimits = { ocpVersion: string; rhelVersion: string };

export type SkewLimitEntry = SkewLimits & { fromRelease: string };

/** Releases from `fromRelease` on enforce the limit until a later entry replaces it. */
export const MCO_SKEW_LIMITS: SkewLimitEntry[] = [{ fromRelease: "4.22.0", ocpVersion: "4.13.0", rhelVersion: "9.2" }];

/** The limit the MCO of a given release enforces; null below 4.22 (no enforcement). */
export function skewLimitsFor(release: string | null | undefined, table: SkewLimitEntry[] = MCO_SKEW_LIMITS): SkewLimits | null {
  const v = parseOcpVersion(release);
  if (!v) return null;
  const applicable = table
    .filter((e) => compareVersions(v, parseOcpVersion(e.fromRelease)!) >= 0)
    .sort((a, b) => compareVersions(parseOcpVersion(b.fromRelease)!, parseOcpVersion(a.fromRelease)!));
  return applicable[0] ? { ocpVersion: applicable[0].ocpVersion, rhelVersion: applicable[0].rhelVersion } : null;
}

export type SkewValue = { ocpVersion?: string | null; rhcosVersion?: string | null };

export type SkewVerdict =
  | { outcome: "within-limit"; compared: "ocpVersion" | "rhcosVersion"; value: string }
  | { outcome: "below-limit"; compared: "ocpVersion" | "rhcosVersion"; value: string; rhel?: string; message: string }
  | { outcome: "unparseable"; value: string; warning: string }
  | { outcome: "no-value"; warning: string };

export const UPGRADEABLE_SKEW_REASON = "ClusterBootImageSkewError";

const docsUrl = (docsVersion: string | null) =>
  `https://docs.redhat.com/en/documentation/openshift_container_platform/${docsVersion ?? "latest"}/html/machine_configuration/mco-update-boot-skew-mgmt`;

const remedy = (docsVersion: string | null) =>
  `To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at ${docsUrl(docsVersion)}`;

/**
 * `checkBootImageSkew`: if an OCP version is given it is the only thing compared; otherwise the
 * RHCOS build's RHEL version. Unparseable values count as within the limit (the MCO logs and does
 * not block), reported here with a warning. `currentRelease` is the cluster's newest history entry,
 * which picks the docs link version ("latest" when unknown), exactly as the MCO words it.
 */
export function checkBootImageSkew(value: SkewValue, limits: SkewLimits, currentRelease: string | null): SkewVerdict {
  const docsVersion = minorOf(currentRelease);
  if (value.ocpVersion) {
    const v = parseOcpVersion(value.ocpVersion);
    if (!v)
      return {
        outcome: "unparseable",
        value: value.ocpVersion,
        warning: `OCP version "${value.ocpVersion}" cannot be parsed; the MCO does not block on it`,
      };
    const limit = parseOcpVersion(limits.ocpVersion)!;
    if (compareVersions(v, limit) >= 0) return { outcome: "within-limit", compared: "ocpVersion", value: value.ocpVersion };
    return {
      outcome: "below-limit",
      compared: "ocpVersion",
      value: value.ocpVersion,
      message: `Upgrades have been disabled because the cluster is using OCP boot image version ${value.ocpVersion}, which is below the minimum required version ${limits.ocpVersion}. ${remedy(docsVersion)}`,
    };
  }
  if (value.rhcosVersion) {
    const build = parseRhcosBuild(value.rhcosVersion);
    if (!build)
      return {
        outcome: "unparseable",
        value: value.rhcosVersion,
        warning: `RHCOS version "${value.rhcosVersion}" cannot be parsed; the MCO does not block on it`,
      };
    const limit = parseOcpVersion(limits.rhelVersion)!;
    const rhel = `${build.rhel.major}.${build.rhel.minor}`;
    if (compareVersions(build.rhel, limit) >= 0) return { outcome: "within-limit", compared: "rhcosVersion", value: value.rhcosVersion };
    return {
      outcome: "below-limit",
      compared: "rhcosVersion",
      value: value.rhcosVersion,
      rhel,
      message: `Upgrades have been disabled because the cluster is using RHCOS boot image version ${value.rhcosVersion}(RHEL version: ${rhel}), which is below the minimum required RHEL version ${limits.rhelVersion}. ${remedy(docsVersion)}`,
    };
  }
  return { outcome: "no-value", warning: "no boot image version is recorded" };
}

export type HistoryEntry = { state?: string; version?: string };

/**
 * The MCO's "install version" (`GetOCPInstallVersion`): the oldest Completed history entry, else
 * the oldest entry, normalised to x.y.z; "0.0.0" when unreadable.
 */
export function installVersion(history: HistoryEntry[] | null | undefined): string {
  const entries = Array.isArray(history) ? history : [];
  const oldestFirst = [...entries].reverse();
  const chosen = oldestFirst.find((e) => e?.state === "Completed") ?? oldestFirst[0];
  const v = parseOcpVersion(chosen?.version);
  return v ? formatVersion(v) : "0.0.0";
}

export type { Version };
