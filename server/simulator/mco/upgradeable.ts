import { atLeast, currentOcpVersion, lessThan, parseGeneric } from "./version";

/**
 * ClusterOperator machine-config `Upgradeable`, as `syncUpgradeableStatus` computes it
 * (pkg/operator/status.go, release-4.22): the boot image skew guard first, then pools — the first
 * pool (in listing order) that is Degraded or has an interrupted build overrides it.
 */
type Any = Record<string, any>;
export type UpgradeableCondition = { type: "Upgradeable"; status: "True" | "False"; reason: string; message?: string };

/** pkg/controller/common/constants.go, identical on release-4.22, release-4.23 and main. */
export const OCP_VERSION_BOOT_IMAGE_SKEW_LIMIT = "4.13.0";
export const RHCOS_VERSION_BOOT_IMAGE_SKEW_LIMIT = "9.2";

/** `checkOCPVersionSkew`: null when within the limit or unparseable (logged, not blocking). */
function checkOCPVersionSkew(version: string): string | null {
  const v = parseGeneric(version);
  const limit = parseGeneric(OCP_VERSION_BOOT_IMAGE_SKEW_LIMIT)!;
  if (!v || !lessThan(v, limit)) return null;
  return `the cluster is using OCP boot image version ${version}, which is below the minimum required version ${OCP_VERSION_BOOT_IMAGE_SKEW_LIMIT}`;
}

/** `checkRHCOSVersionSkew`: the RHEL version from an RHCOS build, by the length of its date stamp. */
function checkRHCOSVersionSkew(version: string): string | null {
  const parts = version.split(".");
  if (parts.length < 3) return null;
  const [major, minor] = [parts[0]!, parts[1]!];
  let stamp = parts[2]!;
  const dash = stamp.indexOf("-");
  if (dash !== -1) stamp = stamp.slice(0, dash);
  let compare: string;
  if (stamp.length === 8) compare = `${major}.${minor}`;
  else if (stamp.length === 12) {
    if (minor.length < 2) return null;
    compare = `${minor.slice(0, 1)}.${minor.slice(1)}`;
  } else return null;
  const v = parseGeneric(compare);
  if (!v || !lessThan(v, parseGeneric(RHCOS_VERSION_BOOT_IMAGE_SKEW_LIMIT)!)) return null;
  return `the cluster is using RHCOS boot image version ${version}(RHEL version: ${compare}), which is below the minimum required RHEL version ${RHCOS_VERSION_BOOT_IMAGE_SKEW_LIMIT}`;
}

/** `checkBootImageSkew`: the OCP version when given, else the RHCOS version. */
function checkBootImageSkew(ocpVersion: string | undefined, rhcosVersion: string | undefined): string | null {
  if (ocpVersion) return checkOCPVersionSkew(ocpVersion);
  if (rhcosVersion) return checkRHCOSVersionSkew(rhcosVersion);
  return null;
}

/**
 * `checkBootImageSkewUpgradeableGuard`: in Automatic mode the controller's conditions come first — Degraded
 * blocks with its message, Progressing True or missing skips the check (`checkBootImageControllerReady`,
 * whose error starts "Boot image" in release-4.22 and "boot image" from release-4.23); then the
 * recorded version against the limits. The docs link carries the newest history entry's major.minor.
 */
export function bootImageSkewGuard(release: string, machineConfiguration: Any | null, history: Any[]): string | null {
  if (!machineConfiguration) return null;
  const status = machineConfiguration.status?.bootImageSkewEnforcementStatus ?? {};
  let exceeded: string | null = null;
  if (status.mode === "Automatic") {
    const conditions = (machineConfiguration.status?.conditions ?? []) as Any[];
    const degraded = conditions.find((c) => c.type === "BootImageUpdateDegraded");
    if (degraded?.status === "True") {
      const err = `${atLeast(release, 23) ? "boot" : "Boot"} image controller is degraded: ${degraded.message ?? ""}`;
      return `Upgrades have been disabled due to boot image update failures: ${err}`;
    }
    const progressing = conditions.find((c) => c.type === "BootImageUpdateProgressing");
    if (!progressing || progressing.status === "True") return null;
    exceeded = checkBootImageSkew(status.automatic?.ocpVersion, status.automatic?.rhcosVersion);
  } else if (status.mode === "Manual") exceeded = checkBootImageSkew(status.manual?.ocpVersion, status.manual?.rhcosVersion);
  if (!exceeded) return null;
  const current = currentOcpVersion(history);
  const parts = current.split(".");
  const docsVersion = current && parts.length >= 2 ? `${parts[0]}.${parts[1]}` : "latest";
  return `Upgrades have been disabled because ${exceeded}. To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at https://docs.redhat.com/en/documentation/openshift_container_platform/${docsVersion}/html/machine_configuration/mco-update-boot-skew-mgmt`;
}

const isTrue = (pool: Any, type: string) => ((pool.status?.conditions ?? []) as Any[]).some((c) => c.type === type && c.status === "True");

/** `syncUpgradeableStatus`. `skewEnforcement`: the BootImageSkewEnforcement gate is on. */
export function machineConfigUpgradeable(
  release: string,
  skewEnforcement: boolean,
  machineConfiguration: Any | null,
  history: Any[],
  pools: Any[],
): UpgradeableCondition {
  let condition: UpgradeableCondition = { type: "Upgradeable", status: "True", reason: "AsExpected" };
  const skew = skewEnforcement ? bootImageSkewGuard(release, machineConfiguration, history) : null;
  if (skew) condition = { type: "Upgradeable", status: "False", reason: "ClusterBootImageSkewError", message: skew };
  for (const pool of pools) {
    if (isTrue(pool, "Degraded"))
      return {
        type: "Upgradeable",
        status: "False",
        reason: "DegradedPool",
        message: "One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading",
      };
    if (isTrue(pool, "BuildInterrupted"))
      return {
        type: "Upgradeable",
        status: "False",
        reason: "InterruptedBuild",
        message:
          "One or more machine config pools' builds have been interrupted, please see `oc get mcp` for further details and resolve before upgrading",
      };
  }
  return condition;
}
