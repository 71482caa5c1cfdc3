import { parseOcpVersion } from "./versions";

/**
 * Which MCO a prediction follows. A cluster is judged by the MCO of the release it is going to, and
 * where the MCO's rules differ between its release lines, each prediction names the line whose code
 * it follows (docs/openshift.md §25 has the table, with the upstream commits):
 * - "4.22": openshift/machine-config-operator release-4.22 with openshift/api release-4.22. Releases
 *   before 4.22 follow it too where they have the rule at all (each rule notes its own start).
 * - "4.23": release-4.23, which is also the 5.0 line (release-5.0 points at the same commit) and
 *   what main has; any later release follows it until Fleetskew learns a newer line.
 */
export type McoRelease = "4.22" | "4.23";

/** A feature set of FeatureGate/cluster spec.featureSet (openshift/api config/v1 types_feature.go). */
export type FeatureSet = "Default" | "TechPreviewNoUpgrade" | "DevPreviewNoUpgrade" | "CustomNoUpgrade" | "OKD";

export type McoRules = {
  release: McoRelease;
  /** The MCO branch and commit the rules were read from. */
  mco: { branch: string; commit: string };
  /** The openshift/api branch and commit its feature gates come from. */
  api: { branch: string; commit: string };
  /**
   * The feature sets that turn on `IrreconcilableMachineConfig` (openshift/api features/features.go),
   * without which the daemon and the render controller never read
   * MachineConfiguration spec.irreconcilableValidationOverrides (update.go `update`,
   * render_controller.go `getRenderedMachineConfig`: `fgHandler.Enabled(FeatureGateIrreconcilableMachineConfig)`).
   */
  irreconcilableOverridesIn: readonly FeatureSet[];
  /**
   * How the boot image controller tells which AWS AMIs it may replace: release-4.22 by its compiled
   * `AllowedAMIs` list (pkg/controller/bootimage/ami.go), later lines by the AMI's owner, asked of EC2
   * (aws_helpers.go `detectAMIKind`).
   */
  awsAmiRecognition: "allowed-amis-list" | "ec2-owner";
};

export const MCO_RULES: Record<McoRelease, McoRules> = {
  "4.22": {
    release: "4.22",
    mco: { branch: "release-4.22", commit: "9027c94cde45" },
    api: { branch: "release-4.22", commit: "9fda5179a7f7" },
    irreconcilableOverridesIn: ["TechPreviewNoUpgrade", "DevPreviewNoUpgrade"],
    awsAmiRecognition: "allowed-amis-list",
  },
  "4.23": {
    release: "4.23",
    mco: { branch: "release-4.23", commit: "d20efd9b9bdb" },
    api: { branch: "release-4.23", commit: "dffcf504e2ea" },
    irreconcilableOverridesIn: ["Default", "OKD", "TechPreviewNoUpgrade", "DevPreviewNoUpgrade"],
    awsAmiRecognition: "ec2-owner",
  },
};

/** The MCO release line whose rules apply at `release` (a target or current version); unparseable → the 4.22 line. */
export function mcoReleaseFor(release: string | null | undefined): McoRelease {
  const v = parseOcpVersion(release);
  return v && (v.major > 4 || (v.major === 4 && v.minor >= 23)) ? "4.23" : "4.22";
}

export const mcoRulesFor = (release: string | null | undefined): McoRules => MCO_RULES[mcoReleaseFor(release)];

/** How a prediction names the MCO it follows, e.g. "the 4.22 MCO (release-4.22 at 9027c94cde45)". */
export const describeMcoRelease = (r: McoRelease) => `the ${r} MCO (${MCO_RULES[r].mco.branch} at ${MCO_RULES[r].mco.commit})`;

/** The gate's name in openshift/api features/features.go and in FeatureGate status. */
export const IRRECONCILABLE_GATE = "IrreconcilableMachineConfig";

export type IrreconcilableGate = {
  /** Whether the MCO of `release` reads the overrides. */
  enabled: boolean;
  /** Why, in words: the release's rule and the feature set it was decided for. */
  basis: string;
};

/**
 * Whether the MCO of `release` reads spec.irreconcilableValidationOverrides. FeatureGate/cluster
 * decides: its status's list of enabled gates for `release` when given (the cluster's own version),
 * else its spec.featureSet by the release's table; when neither is known, the overrides being present decides: openshift/api
 * marks the field `+openshift:enable:FeatureGate=IrreconcilableMachineConfig`, so an API server
 * whose feature set leaves the gate off prunes it, and a live object that has them has the gate on.
 */
export function irreconcilableOverridesGate(
  release: string | null | undefined,
  featureSet: FeatureSet | string | null | undefined,
  overridesPresent: boolean,
  enabledAtRelease?: { version: string; enabled: readonly string[] } | null,
): IrreconcilableGate {
  const rules = mcoRulesFor(release);
  const where = `IrreconcilableMachineConfig is on in ${rules.irreconcilableOverridesIn.filter((s) => s !== "OKD").join(", ")} at ${rules.release} (openshift/api ${rules.api.branch})`;
  // FeatureGate/cluster status.featureGates for this very version: what the cluster's operators read.
  if (enabledAtRelease) {
    const enabled = enabledAtRelease.enabled.includes(IRRECONCILABLE_GATE);
    return {
      enabled,
      basis: `FeatureGate/cluster status lists ${IRRECONCILABLE_GATE} as ${enabled ? "enabled" : "not enabled"} at ${enabledAtRelease.version}${featureSet ? ` (feature set ${featureSet})` : ""}`,
    };
  }
  if (featureSet) {
    const enabled = (rules.irreconcilableOverridesIn as readonly string[]).includes(featureSet);
    return { enabled, basis: `${where}; this cluster's feature set is ${featureSet}` };
  }
  if (rules.irreconcilableOverridesIn.includes("Default")) return { enabled: true, basis: `${where}: every feature set has it` };
  return {
    enabled: overridesPresent,
    basis: overridesPresent
      ? `${where}; the feature set was not read, and the API server keeps irreconcilableValidationOverrides only where the gate is on, so it is taken to be on`
      : `${where}; the feature set was not read and no overrides are set`,
  };
}
