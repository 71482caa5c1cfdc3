import { bootImagesSupported } from "./platforms";
import { mcoReleaseFor, type McoRelease } from "./mcoRelease";
import { oldestBootImage, type OldestBootImage } from "./oldestBootImage";
import {
  checkBootImageSkew,
  degradedControllerMessage,
  installVersion,
  MCO_SKEW_LIMITS,
  UPGRADEABLE_SKEW_REASON,
  skewLimitsFor,
} from "./skew";
import type { SkewLimitEntry, SkewLimits, SkewVerdict } from "./skew";
import { conditionOf, type ClusterSnapshot } from "./snapshot";
import { compareVersions, formatVersion, parseOcpVersion } from "./versions";
import {
  type EffectiveEnforcement,
  type EnforcementMode,
  bareMetalProvisioningOf,
  effectiveEnforcement,
  historyOf,
  normalized,
  platformMinor,
} from "./skewEnforcement";

/**
 * Boot-image skew of one cluster at a release: the MCO's way (which mode, which value, which
 * Upgradeable condition, docs/openshift.md §15–§17; the enforcement itself in skewEnforcement.ts) and
 * Fleetskew's way (per MachineSet lag, the oldest boot image, what managed boot images would change).
 */
export type SkewBlock = { reason: string; message: string; source: "cluster" | "predicted" };

export type SkewAssessment = {
  release: string;
  /** The MCO release line whose rules this assessment follows (docs/openshift.md §25). */
  mcoRelease: McoRelease;
  /** The limit the MCO of `release` enforces; null when that release does not enforce. */
  limits: SkewLimits | null;
  enforcement: EffectiveEnforcement;
  verdict: SkewVerdict | null;
  /** Upgradeable=False on ClusterOperator machine-config because of boot images, at `release`. */
  block: SkewBlock | null;
  notes: string[];
};

/**
 * Skew at `release`. For the cluster's own release the cluster's status is read (its own words);
 * for another release the MCO's rules are applied to what the cluster has now.
 */
export function assessSkew(s: ClusterSnapshot, release: string, table: SkewLimitEntry[] = MCO_SKEW_LIMITS): SkewAssessment {
  return { ...assessSkewAt(s, release, table), mcoRelease: mcoReleaseFor(release) };
}

function assessSkewAt(s: ClusterSnapshot, release: string, table: SkewLimitEntry[]): Omit<SkewAssessment, "mcoRelease"> {
  const limits = skewLimitsFor(release, table);
  const enforcement = effectiveEnforcement(s, release);
  const notes: string[] = [];
  // Rule 2 decided nothing (a Manual spec decides first): say whether the legacy path is known or assumed.
  const spec = s.enforcement?.spec;
  if (
    s.platform === "BareMetal" &&
    enforcement.source === "predicted" &&
    enforcement.mode !== "None" &&
    !(spec?.mode === "Manual" && spec.manual)
  ) {
    const provisioning = bareMetalProvisioningOf(s);
    notes.push(
      provisioning.legacyPath
        ? `bare metal on the legacy provisioning path (${provisioning.reason}): the MCO enforces boot-image skew by its usual rules`
        : `bare metal: whether the cluster is on the legacy provisioning path is unknown (${provisioning.reason}); the MCO assumes it is when it cannot tell, so enforcement is predicted; without a Provisioning provisioningOSDownloadURL the mode would be None`,
    );
  }
  if (!limits) return { release, limits, enforcement, verdict: null, block: null, notes };

  if (enforcement.source === "cluster") {
    const upgradeable = conditionOf(s.machineConfigOperator, "Upgradeable");
    const verdict = enforcement.value ? checkBootImageSkew(enforcement.value, limits, historyOf(s)[0]?.version ?? null) : null;
    if (upgradeable?.status === "False" && upgradeable.reason === UPGRADEABLE_SKEW_REASON)
      return {
        release,
        limits,
        enforcement,
        verdict,
        block: { reason: UPGRADEABLE_SKEW_REASON, message: upgradeable.message ?? "", source: "cluster" },
        notes,
      };
    // §17.3: in Automatic the MCO first asks its boot image controller. Degraded blocks whatever the
    // value; a controller still walking MachineSets (or one that never reported) skips the check.
    const controller =
      enforcement.mode === "Automatic" ? bootImageControllerState(s.bootImageConditions ?? [], s.version?.current ?? null) : "ready";
    if (controller === "skipped") {
      notes.push(
        "the boot image controller has not finished a pass (BootImageUpdateProgressing is True or missing), so the MCO skips the skew check until it does",
      );
      return { release, limits, enforcement, verdict, block: null, notes };
    }
    const message = controller !== "ready" ? controller.message : verdict?.outcome === "below-limit" ? verdict.message : null;
    if (message !== null) {
      const predictedBlock = { reason: UPGRADEABLE_SKEW_REASON, message, source: "predicted" as const };
      // §17.4: DegradedPool / InterruptedBuild override the skew reason; the skew block is still there underneath.
      if (upgradeable?.status === "False") {
        notes.push(
          `the MCO reports Upgradeable=False with reason ${upgradeable.reason ?? "(none)"}, which overrides ${UPGRADEABLE_SKEW_REASON}; the boot-image block shows once that is resolved`,
        );
        return { release, limits, enforcement, verdict, block: predictedBlock, notes };
      }
      if (!s.machineConfigOperator) {
        notes.push("ClusterOperator machine-config could not be read; the block is predicted from the cluster's own boot-image record");
        return { release, limits, enforcement, verdict, block: predictedBlock, notes };
      }
      notes.push(
        controller !== "ready"
          ? "the boot image controller is degraded but the cluster does not report the block yet (the MCO may not have synced)"
          : "the value is below the limit but the cluster does not report the block yet (the MCO may not have synced)",
      );
    }
    return { release, limits, enforcement, verdict, block: null, notes };
  }

  if (enforcement.undetermined) notes.push(`not predicted: ${enforcement.undetermined}`);
  if (enforcement.mode === "None" || !enforcement.value) return { release, limits, enforcement, verdict: null, block: null, notes };
  // Once at `release`, its newest history entry is `release`: that is the docs link version the MCO uses.
  const verdict = checkBootImageSkew(enforcement.value, limits, release);
  if (enforcement.mode === "Automatic" && enforcement.skewCheckSkipped) {
    notes.push(enforcement.skewCheckSkipped);
    return { release, limits, enforcement, verdict, block: null, notes };
  }
  if (enforcement.mode === "Automatic" && enforcement.degradedController)
    return {
      release,
      limits,
      enforcement,
      verdict,
      block: {
        reason: UPGRADEABLE_SKEW_REASON,
        message: degradedControllerMessage(release, enforcement.degradedController),
        source: "predicted",
      },
      notes,
    };
  const block =
    verdict.outcome === "below-limit" ? { reason: UPGRADEABLE_SKEW_REASON, message: verdict.message, source: "predicted" as const } : null;
  return { release, limits, enforcement, verdict, block, notes };
}

/**
 * What the MCO's readiness check of the boot image controller answers in Automatic mode
 * (`checkBootImageControllerReady`, pkg/operator/status.go; §17.3), from MachineConfiguration's
 * conditions: Degraded=True blocks with its message (worded as the MCO of `release` words it);
 * Progressing missing or True skips the skew check.
 */
export function bootImageControllerState(
  conditions: readonly { type: string; status: string; message?: string | null }[],
  release: string | null = null,
): "ready" | "skipped" | { message: string } {
  const degraded = conditions.find((c) => c.type === "BootImageUpdateDegraded");
  if (degraded?.status === "True") return { message: degradedControllerMessage(release, degraded.message ?? "") };
  const progressing = conditions.find((c) => c.type === "BootImageUpdateProgressing");
  return !progressing || progressing.status === "True" ? "skipped" : "ready";
}

/** The first release at or after `current` whose MCO enforces a limit (the table's earliest applicable entry). */
export function firstEnforcingRelease(current: string | null, table: SkewLimitEntry[] = MCO_SKEW_LIMITS): string | null {
  const v = parseOcpVersion(current);
  if (!v) return null;
  if (skewLimitsFor(current, table)) return formatVersion(v);
  const later = table
    .map((e) => parseOcpVersion(e.fromRelease)!)
    .filter((r) => compareVersions(r, v) > 0)
    .sort(compareVersions)[0];
  return later ? formatVersion(later) : null;
}

export type SkewStatus = "ok" | "at-risk" | "blocked" | "opted-out" | "unknown";

export type ClusterSkew = {
  status: SkewStatus;
  /** One sentence for tables and tooltips. */
  summary: string;
  /** The assessment that decided the status: at the current release, or at the first enforcing one. */
  assessment: SkewAssessment | null;
  oldest: OldestBootImage | null;
  effectiveMode: EnforcementMode | null;
};

/** The fleet-level status: blocked now, or going to be blocked at the first enforcing release. */
export function clusterSkew(s: ClusterSnapshot, table: SkewLimitEntry[] = MCO_SKEW_LIMITS): ClusterSkew {
  const current = s.version?.current ?? null;
  const oldest = oldestBootImage(s);
  if (!current || !parseOcpVersion(current))
    return { status: "unknown", summary: "the cluster version is not known", assessment: null, oldest, effectiveMode: null };
  const enforcing = firstEnforcingRelease(current, table);
  const now = assessSkew(s, current, table);
  const effectiveMode = now.enforcement.mode;
  if (s.enforcement?.spec?.mode === "None")
    return {
      status: "opted-out",
      summary: "skew enforcement is off (mode None): scaling may fail with old boot images",
      assessment: now,
      oldest,
      effectiveMode,
    };
  if (now.limits) {
    if (!now.block && now.enforcement.skewCheckSkipped)
      return {
        status: "at-risk",
        summary: `not blocked, but only because ${now.enforcement.skewCheckSkipped.replace(/: minor updates.*$/, "")}`,
        assessment: now,
        oldest,
        effectiveMode,
      };
    if (!now.block && now.enforcement.undetermined)
      return {
        status: "unknown",
        summary: `depends on what Fleetskew cannot read: ${now.enforcement.undetermined}`,
        assessment: now,
        oldest,
        effectiveMode,
      };
    if (now.block) return { status: "blocked", summary: `Upgradeable=False (${now.block.reason})`, assessment: now, oldest, effectiveMode };
    return {
      status: "ok",
      summary: now.enforcement.mode === "None" ? `not enforced at ${current} (${now.enforcement.basis})` : `within the ${current} limit`,
      assessment: now,
      oldest,
      effectiveMode,
    };
  }
  if (!enforcing)
    return { status: "ok", summary: "no release in the limits table enforces skew yet", assessment: now, oldest, effectiveMode };
  const later = assessSkew(s, enforcing, table);
  if (!later.block && later.enforcement.skewCheckSkipped)
    return {
      status: "at-risk",
      summary: `once at ${enforcing} not blocked, but only because ${later.enforcement.skewCheckSkipped.replace(/: minor updates.*$/, "")}`,
      assessment: later,
      oldest,
      effectiveMode,
    };
  if (!later.block && later.enforcement.undetermined)
    return {
      status: "unknown",
      summary: `whether minor updates are blocked once at ${enforcing} depends on what Fleetskew cannot read: ${later.enforcement.undetermined}`,
      assessment: later,
      oldest,
      effectiveMode,
    };
  if (later.block)
    return {
      status: "at-risk",
      summary:
        `will be blocked from minor updates once at ${parseOcpVersion(enforcing)!.major}.${parseOcpVersion(enforcing)!.minor}` +
        (later.enforcement.assumption ? ` (${later.enforcement.assumption})` : ""),
      assessment: later,
      oldest,
      effectiveMode,
    };
  return {
    status: "ok",
    summary:
      later.enforcement.mode === "None"
        ? `not enforced at ${enforcing} either (${later.enforcement.basis})`
        : `within the limit ${enforcing} will enforce`,
    assessment: later,
    oldest,
    effectiveMode,
  };
}

export type ManagedWhatIf = {
  supported: boolean;
  wouldUpdate: string[];
  /** Skipped (they reset the record to the install version) or failing (they degrade the controller). */
  wouldSkip: { machineSet: string; reason: string }[];
  /** Left out on purpose (Windows, another OS stream…): they change nothing. */
  excluded: { machineSet: string; reason: string }[];
  /** The enforcement the MCO would then settle on. */
  result: string;
};

/** What enabling managed boot images (MachineSets: All) would change on this cluster now. */
export function managedBootImagesWhatIf(s: ClusterSnapshot): ManagedWhatIf {
  const supported = bootImagesSupported(s.platform, platformMinor(s.version?.current), s.azureCloudName);
  const wouldUpdate = s.machineSets.filter((m) => m.ifAllManaged.action === "update").map((m) => m.machineSet);
  const wouldSkip = s.machineSets
    .filter((m) => m.ifAllManaged.action === "skip" || m.ifAllManaged.action === "error")
    .map((m) => ({ machineSet: m.machineSet, reason: m.ifAllManaged.reason }));
  const excluded = s.machineSets
    .filter((m) => m.ifAllManaged.action === "exclude")
    .map((m) => ({ machineSet: m.machineSet, reason: m.ifAllManaged.reason }));
  const result = !supported
    ? `the MCO does not update boot images on ${s.platform ? `platform ${s.platform}` : "this platform"} at ${s.version?.current ?? "this version"}`
    : wouldSkip.length
      ? `Automatic, but still the install version ${installVersion(historyOf(s))} while ${wouldSkip.length} MachineSet(s) are skipped`
      : `Automatic with the boot images of ${normalized(s.bootImageRelease) ?? "the current release"}`;
  return { supported, wouldUpdate, wouldSkip, excluded, result };
}
