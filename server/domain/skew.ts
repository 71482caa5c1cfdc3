import { compareGeneric, compareVersions, genericMajorMinorPatch, parseGenericVersion, parseOcpVersion, type Version } from "./versions";

/**
 * Boot-image skew as the Machine Config Operator decides it (docs/openshift.md §17). The limits are compiled
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

/**
 * The docs link's version: "major.minor" of the newest ClusterVersion history entry as the MCO's
 * `getCurrentOCPVersionFromClusterVersion` normalises it (ParseGeneric, then x.y.z), "latest" when
 * that cannot be read (pkg/operator/status.go `checkBootImageSkewUpgradeableGuard`; §17.3).
 */
export function docsVersionOf(newestHistoryVersion: string | null | undefined): string {
  const v = parseGenericVersion(newestHistoryVersion);
  return v ? genericMajorMinorPatch(v).split(".").slice(0, 2).join(".") : "latest";
}

const docsUrl = (docsVersion: string) =>
  `https://docs.redhat.com/en/documentation/openshift_container_platform/${docsVersion}/html/machine_configuration/mco-update-boot-skew-mgmt`;

const blockedBecause = (reason: string, docsVersion: string) =>
  `Upgrades have been disabled because ${reason}. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at ${docsUrl(docsVersion)}`;

/**
 * `checkRHCOSVersionSkew` (pkg/operator/status.go; §17.2): split on "."; at least three fields;
 * the third field's part before "-" decides the scheme by its length — 8 (YYYYMMDD): compare
 * "first.second" as written; 12 (YYYYMMDDHHmm, legacy): the second field is the RHEL version without
 * its dot ("86" → "8.6", "810" → "8.10") and must have two or more digits. The resulting text is
 * parsed with ParseGeneric. Null where the MCO logs a warning and does not block.
 */
export function rhelVersionOfBuild(build: string): string | null {
  const parts = build.split(".");
  if (parts.length < 3) return null;
  const [major, minor, third] = parts as [string, string, string];
  const stamp = third.includes("-") ? third.slice(0, third.indexOf("-")) : third;
  let rhel: string;
  if (stamp.length === 8) rhel = `${major}.${minor}`;
  else if (stamp.length === 12 && minor.length >= 2) rhel = `${minor.slice(0, 1)}.${minor.slice(1)}`;
  else return null;
  return parseGenericVersion(rhel) ? rhel : null;
}

/**
 * `checkBootImageSkew` (pkg/operator/status.go; §17.2): an OCP version, when given, is the only
 * thing compared (ParseGeneric, below the limit blocks); otherwise the RHCOS build's RHEL version.
 * What the MCO cannot parse does not block (it logs and moves on), reported here with a warning.
 * `currentRelease` is the newest ClusterVersion history entry, which picks the docs link version.
 */
export function checkBootImageSkew(value: SkewValue, limits: SkewLimits, currentRelease: string | null): SkewVerdict {
  const docsVersion = docsVersionOf(currentRelease);
  if (value.ocpVersion) {
    const v = parseGenericVersion(value.ocpVersion);
    const limit = parseGenericVersion(limits.ocpVersion);
    if (!v || !limit)
      return {
        outcome: "unparseable",
        value: value.ocpVersion,
        warning: `OCP version "${value.ocpVersion}" cannot be parsed; the MCO does not block on it`,
      };
    if (compareGeneric(v, limit) >= 0) return { outcome: "within-limit", compared: "ocpVersion", value: value.ocpVersion };
    return {
      outcome: "below-limit",
      compared: "ocpVersion",
      value: value.ocpVersion,
      message: blockedBecause(
        `the cluster is using OCP boot image version ${value.ocpVersion}, which is below the minimum required version ${limits.ocpVersion}`,
        docsVersion,
      ),
    };
  }
  if (value.rhcosVersion) {
    const rhel = rhelVersionOfBuild(value.rhcosVersion);
    const limit = parseGenericVersion(limits.rhelVersion);
    if (!rhel || !limit)
      return {
        outcome: "unparseable",
        value: value.rhcosVersion,
        warning: `RHCOS version "${value.rhcosVersion}" cannot be parsed; the MCO does not block on it`,
      };
    if (compareGeneric(parseGenericVersion(rhel)!, limit) >= 0)
      return { outcome: "within-limit", compared: "rhcosVersion", value: value.rhcosVersion };
    return {
      outcome: "below-limit",
      compared: "rhcosVersion",
      value: value.rhcosVersion,
      rhel,
      message: blockedBecause(
        `the cluster is using RHCOS boot image version ${value.rhcosVersion}(RHEL version: ${rhel}), which is below the minimum required RHEL version ${limits.rhelVersion}`,
        docsVersion,
      ),
    };
  }
  return { outcome: "no-value", warning: "no boot image version is recorded" };
}

/**
 * The boot image controller's "degraded" error as the MCO of `release` words it inside its
 * Upgradeable message (`checkBootImageControllerReady`, pkg/operator/status.go; §17.3): capitalised
 * in release-4.22, lower case from the next release on (release-4.23 and main).
 */
export function degradedControllerMessage(release: string | null, degradedMessage: string): string {
  const v = parseOcpVersion(release);
  const capital = !!v && v.major === 4 && v.minor <= 22;
  return `Upgrades have been disabled due to boot image update failures: ${capital ? "Boot" : "boot"} image controller is degraded: ${degradedMessage}`;
}

export type HistoryEntry = { state?: string; version?: string };

/**
 * The MCO's "install version" (`GetOCPInstallVersion`, pkg/apihelpers/apihelpers.go; §16.2): walking
 * from the oldest entry, the first Completed one; when there is none, or its version is empty, the
 * oldest entry's version; normalised with ParseGeneric to x.y.z; "0.0.0" when history is empty or
 * the version cannot be parsed.
 */
export function installVersion(history: HistoryEntry[] | null | undefined): string {
  const entries = Array.isArray(history) ? history : [];
  if (entries.length === 0) return "0.0.0";
  const oldestFirst = [...entries].reverse();
  const completed = oldestFirst.find((e) => e?.state === "Completed")?.version ?? "";
  const chosen = completed !== "" ? completed : (entries.at(-1)?.version ?? "");
  const v = parseGenericVersion(chosen);
  return v ? genericMajorMinorPatch(v) : "0.0.0";
}

export type { Version };
