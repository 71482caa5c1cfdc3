import { bootImagesDefaultOn, bootImagesSupported } from "./platforms";
import { mcoReleaseFor, mcoRulesFor } from "./mcoRelease";
import { installVersion } from "./skew";
import { decisionAt, type BareMetalProvisioningFacts, type ClusterSnapshot, type EnforcementValue } from "./snapshot";
import { formatVersion, genericMajorMinorPatch, parseGenericVersion, parseOcpVersion } from "./versions";

/**
 * Which skew enforcement the MCO applies on a cluster at a release, and with which value: what the
 * cluster reports, or what Fleetskew predicts from the MCO's rules when the release is not the
 * cluster's own (docs/openshift.md §15–§17). clusterSkew.ts judges the boot images against it.
 */
export type EnforcementMode = "Automatic" | "Manual" | "None";

export type EffectiveEnforcement = {
  mode: EnforcementMode;
  value: EnforcementValue | null;
  /** "cluster": read from MachineConfiguration status; "predicted": the §16.1 rules applied at another release. */
  source: "cluster" | "predicted";
  /** Why this mode, in words. */
  basis: string;
  /** The value is the install version the MCO assumes when it knows nothing better. */
  installVersionFallback: boolean;
  /**
   * Predicted only: the boot image controller would fail on some MachineSet (§15.2), and this is the
   * BootImageUpdateDegraded message it would write; in Automatic mode that blocks upgrades (§17.3).
   */
  degradedController?: string | null;
  /** Predicted only: what the prediction assumes where Fleetskew cannot see what the MCO sees (e.g. an AMI's owner). */
  assumption?: string | null;
  /**
   * Predicted only: why the MCO never runs the skew check although its mode is Automatic. The boot
   * image controller crashes on a MachineSet: `syncMAPIMachineSets` writes BootImageUpdateProgressing
   * True ("Reconciled 0 of N") before it walks the MachineSets, and the panic ends the pass there, on
   * every restart; `checkBootImageControllerReady` then answers "not ready", so
   * `checkBootImageSkewUpgradeableGuard` skips the check and blocks nothing (pkg/operator/status.go).
   */
  skewCheckSkipped?: string | null;
  /**
   * Predicted only: the outcome depends on what Fleetskew cannot read (a MachineSet decision with
   * basis "unknown", e.g. an AMI's owner in EC2 from 4.23); the value is then null and no verdict is
   * given. Says what it depends on, with the MCO's words for the failure case.
   */
  undetermined?: string | null;
};

export const sameMinor = (a: string | null | undefined, b: string | null | undefined) => {
  const x = parseOcpVersion(a);
  const y = parseOcpVersion(b);
  return !!x && !!y && x.major === y.major && x.minor === y.minor;
};

export const normalized = (text: string | null | undefined) => {
  const v = parseOcpVersion(text);
  return v ? formatVersion(v) : null;
};

export const historyOf = (s: ClusterSnapshot) => s.version?.history ?? [];

/**
 * The minor to look up in the 4.x platform timeline (platforms.ts). A later major (the "5.0" line,
 * docs/openshift.md §14) keeps everything 4.x HEAD has, so it counts as past every 4.x minor; 0 when unparseable.
 */
export function platformMinor(release: string | null | undefined): number {
  const v = parseOcpVersion(release);
  if (!v) return 0;
  return v.major > 4 ? Number.MAX_SAFE_INTEGER : v.minor;
}

/**
 * Whether the cluster is on the bare-metal legacy provisioning path (§16.1 rule 2). A snapshot stored
 * before Fleetskew read the Provisioning object does not say: unknown, which the MCO treats as legacy.
 */
export function bareMetalProvisioningOf(s: ClusterSnapshot): BareMetalProvisioningFacts {
  return s.bareMetalProvisioning ?? { legacyPath: null, reason: "the Provisioning object was not read for this snapshot" };
}

/**
 * The Degraded message the boot image controller writes after a pass (`updateConditions`,
 * boot_image_controller.go; §15.5): counts per kind of machine resource, then the errors as
 * kubeErrs.NewAggregate prints them (one alone, several deduplicated in brackets). The MCO lists
 * MachineSets in its cache's order, which is unspecified; Fleetskew lists them by name.
 */
export function predictedDegradedMessage(errors: string[]): string {
  const unique = [...new Set(errors)];
  const aggregate = unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
  return `${errors.length} Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments | Error(s): ${aggregate}`;
}

/** aws_helpers.go cmpRHCOSVersion: by "major.minor" only (the date stamp does not order). */
export function compareRhcosToken(a: string, b: string): number {
  const token = (v: string) =>
    v
      .split(".")
      .slice(0, 2)
      .map((n) => Number.parseInt(n, 10) || 0);
  const [x, y] = [token(a), token(b)];
  return x[0]! - y[0]! || (x[1] ?? 0) - (y[1] ?? 0);
}

/** §16.1 rule 4 with the controller's pass (§15.6): what the Automatic record becomes once it runs at `release`. */
export function automaticEnforcement(s: ClusterSnapshot, release: string, install: string): EffectiveEnforcement {
  const predicted = predictedEnforcement;
  const fallbackValue = { ocpVersion: install, rhcosVersion: null };
  const crashing = s.machineSets.filter((m) => decisionAt(m, release).action === "error" && decisionAt(m, release).crash);
  if (crashing.length > 0)
    // No Degraded message to predict: the controller panics. Its record then stays as it was.
    return {
      ...predicted(
        "Automatic",
        `managed boot images, but the MCO's boot image controller crashes on ${crashing.map((m) => `${m.machineSet} (${decisionAt(m, release).reason})`).join(", ")}, so it never finishes a pass and keeps the install version`,
        fallbackValue,
        true,
      ),
      assumption: `the MCO's own behaviour on ${crashing.map((m) => m.machineSet).join(", ")} is a crash (a nil pointer dereference); Fleetskew assumes the record stays at the install version`,
      skewCheckSkipped:
        `the boot image controller crashes on ${crashing.map((m) => m.machineSet).join(", ")} after setting BootImageUpdateProgressing True, ` +
        "so it never finishes a pass and the MCO skips the skew check (checkBootImageControllerReady): minor updates are not blocked by boot-image skew while it crashes",
    };
  const failing = s.machineSets.filter((m) => decisionAt(m, release).action === "error");
  if (failing.length > 0)
    return {
      ...predicted(
        "Automatic",
        `managed boot images, but the boot image controller fails on ${failing.map((m) => m.machineSet).join(", ")} and goes Degraded`,
        fallbackValue,
        true,
      ),
      degradedController: predictedDegradedMessage(failing.map((m) => decisionAt(m, release).error ?? decisionAt(m, release).reason)),
    };
  // What Fleetskew cannot place (basis "unknown"): no verdict, say what it depends on.
  const open = s.machineSets.filter((m) => decisionAt(m, release).basis === "unknown");
  if (open.length > 0) {
    const ifFails = [...new Set(open.flatMap((m) => decisionAt(m, release).ifFails ?? []))];
    return {
      ...predicted(
        "Automatic",
        `managed boot images, but what the ${mcoReleaseFor(release)} MCO does with ${open.map((m) => m.machineSet).join(", ")} depends on what Fleetskew cannot read`,
        null,
      ),
      undetermined:
        open.map((m) => `${m.machineSet}: ${decisionAt(m, release).reason}`).join("; ") +
        (ifFails.length ? `. Should that fail, the controller goes Degraded with ${ifFails.join("; ")}, which blocks minor updates` : ""),
    };
  }
  // Updates that rest on what Fleetskew cannot read (a Secret, EC2): the prediction says so.
  const resting = s.machineSets.filter((m) => decisionAt(m, release).basis === "assumed" && decisionAt(m, release).action === "update");
  const restingOn = resting.length
    ? `assuming the MCO can update ${resting.map((m) => m.machineSet).join(", ")} (${[...new Set(resting.map((m) => decisionAt(m, release).reason))].join("; ")})` +
      [...new Set(resting.flatMap((m) => decisionAt(m, release).ifFails ?? []))].map((e) => `; otherwise it goes Degraded: ${e}`).join("")
    : null;
  // Which compiled AMI list decided (release-4.22's AllowedAMIs), named with its commit.
  const lists = [...new Set(s.machineSets.flatMap((m) => decisionAt(m, release).amiList ?? []))];
  const decidedBy = lists.length ? `; AMIs judged by ${lists.join(", ")}` : "";
  const skipped = s.machineSets.filter((m) => decisionAt(m, release).action === "skip");
  if (skipped.length > 0) {
    const assumed = skipped.filter((m) => decisionAt(m, release).basis === "assumed");
    return {
      ...predicted(
        "Automatic",
        `managed boot images, but the MCO skips ${skipped.map((m) => m.machineSet).join(", ")}, so it keeps the install version` +
          (assumed.length
            ? ` (assumed for ${assumed.map((m) => m.machineSet).join(", ")}: Fleetskew cannot confirm their AMIs are published RHCOS AMIs)`
            : "") +
          decidedBy,
        fallbackValue,
        true,
      ),
      assumption: assumed.length
        ? `assuming the MCO skips ${assumed.map((m) => m.machineSet).join(", ")}, whose AMIs Fleetskew cannot confirm are published RHCOS AMIs` +
          (mcoRulesFor(release).awsAmiRecognition === "ec2-owner"
            ? ` (from 4.23 the MCO asks EC2 who owns each AMI, aws_helpers.go detectAMIKind: Red Hat's are updated, AWS Marketplace ones too with an rhcosVersion record, other owners skipped, and one it cannot describe degrades the controller)`
            : "")
        : null,
    };
  }
  // updateClusterBootImage: AWS Marketplace MachineSets record the oldest RHCOS version they got
  // (syncMAPIMachineSets keeps the lowest, cmpRHCOSVersion), instead of the OCP version.
  const marketplace = s.machineSets.flatMap((m) => decisionAt(m, release).rhcosVersion ?? []);
  if (marketplace.length > 0) {
    const oldest = [...marketplace].sort(compareRhcosToken)[0]!;
    return {
      ...predicted(
        "Automatic",
        `managed boot images: every MachineSet is updated, AWS Marketplace ones to the newest marketplace AMI at RHCOS ${oldest} or older (findMarketplaceAMI), so the record is an rhcosVersion${decidedBy}`,
        { ocpVersion: null, rhcosVersion: oldest },
      ),
      assumption: restingOn,
    };
  }
  // updateClusterBootImage: coreos-bootimages releaseVersion, parsed with ParseGeneric, as x.y.z.
  const releaseVersion = parseGenericVersion(sameMinor(release, s.version?.current) ? s.bootImageRelease : release);
  const result = releaseVersion
    ? predicted("Automatic", `managed boot images: every MachineSet is moved to the release's boot image${decidedBy}`, {
        ocpVersion: genericMajorMinorPatch(releaseVersion),
        rhcosVersion: null,
      })
    : predicted("Automatic", "managed boot images, but the boot image release is unknown", fallbackValue, true);
  return restingOn ? { ...result, assumption: restingOn } : result;
}

export const predictedEnforcement = (
  mode: EnforcementMode,
  basis: string,
  value: EnforcementValue | null,
  fallback = false,
): EffectiveEnforcement => ({
  mode,
  value,
  source: "predicted",
  basis,
  installVersionFallback: fallback,
});

/** The effective enforcement mode and value at `release` (§16.1, first match wins). */
export function effectiveEnforcement(s: ClusterSnapshot, release: string): EffectiveEnforcement {
  const install = installVersion(historyOf(s));
  const status = s.enforcement?.status;
  if (status && s.enforcement?.served && sameMinor(release, s.version?.current)) {
    const mode = (["Automatic", "Manual", "None"].includes(status.mode) ? status.mode : "None") as EnforcementMode;
    const value = mode === "Automatic" ? status.automatic : mode === "Manual" ? status.manual : null;
    return {
      mode,
      value: value ? { ocpVersion: value.ocpVersion, rhcosVersion: value.rhcosVersion } : null,
      source: "cluster",
      basis: "read from MachineConfiguration status.bootImageSkewEnforcementStatus",
      installVersionFallback: mode !== "None" && !s.enforcement.spec && !!value?.ocpVersion && value.ocpVersion === install,
    };
  }
  const predicted = (mode: EnforcementMode, basis: string, value: EnforcementValue | null, fallback = false): EffectiveEnforcement => ({
    mode,
    value,
    source: "predicted",
    basis,
    installVersionFallback: fallback,
  });
  const spec = s.enforcement?.spec;
  if (spec?.mode === "Manual" && spec.manual)
    return predicted("Manual", "spec.bootImageSkewEnforcement is Manual (an acknowledgement)", {
      ocpVersion: spec.manual.ocpVersion,
      rhcosVersion: spec.manual.rhcosVersion,
    });
  if (spec?.mode === "None") return predicted("None", "spec.bootImageSkewEnforcement is None (the admin opted out)", null);
  // Rule 2: only a known "not legacy" counts; unknown is legacy to the MCO, so the rules below apply.
  const provisioning = bareMetalProvisioningOf(s);
  if (s.platform === "BareMetal" && provisioning.legacyPath === false)
    return predicted(
      "None",
      `bare metal off the legacy provisioning path (${provisioning.reason}): the MCO does not enforce boot-image skew`,
      null,
    );
  if (s.topology === "SingleReplica") return predicted("None", "single-node cluster: the MCO does not enforce boot-image skew", null);

  const minor = platformMinor(release);
  const supported = bootImagesSupported(s.platform, minor, s.azureCloudName);
  // syncManagedBootImagesStatus (§13.2): an explicitly empty list is copied to status as it is, so
  // no MachineSet manager is enrolled and the platform default does not apply.
  const emptyList = s.managedMachineSets.specEmptyList === true;
  const managed = emptyList
    ? "None"
    : (s.managedMachineSets.spec ??
      (bootImagesDefaultOn(s.platform, minor, s.azureCloudName)
        ? "All"
        : sameMinor(release, s.version?.current)
          ? s.managedMachineSets.status
          : null) ??
      "None");
  const fallbackValue = { ocpVersion: install, rhcosVersion: null };
  if (supported && managed === "All") return automaticEnforcement(s, release, install);
  const why = !supported
    ? s.platform === "Azure" && s.azureCloudName === "AzureStackCloud"
      ? `the MCO does not update boot images on Azure Stack Hub (AzureStackCloud)`
      : `the MCO does not update boot images on ${s.platform ? `platform ${s.platform}` : "this platform"} at ${release}`
    : emptyList
      ? "spec.managedBootImages.machineManagers is an empty list, the explicit opt-out of boot image updates"
      : `MachineSet boot images are not fully managed (mode ${managed})`;
  return predicted("Manual", `${why}, so it falls back to Manual with the install version`, fallbackValue, true);
}
