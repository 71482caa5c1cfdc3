import { z } from "zod";
import { assessSkew, firstEnforcingRelease, type SkewAssessment } from "./clusterSkew";
import { checkBootImageSkew, skewLimitsFor, type SkewLimitEntry } from "./skew";
import type { ClusterSnapshot } from "./snapshot";
import { formatVersion, parseOcpVersion } from "./versions";

/**
 * Manual boot-image acknowledgements: what a request may say (the API's own rules, docs/openshift.md
 * §13.1, checked before anything is sent to a cluster), which clusters need one, and what the MCO
 * will make of one. Pure.
 */
export const ACK_MODES = ["OCPVersion", "RHCOSVersion", "None"] as const;
export type AckMode = (typeof ACK_MODES)[number];

/** Where a request stands: waiting for a decision, being written, written (then verified), or done without effect. */
export const ACK_STATUSES = ["pending", "applying", "applied", "failed", "rejected", "expired"] as const;
export type AckStatus = (typeof ACK_STATUSES)[number];

/** How long a request waits for a decision. */
export const ACK_TTL_MS = 7 * 24 * 3_600_000;

// MachineConfiguration spec.bootImageSkewEnforcement.manual validation, word for word where it has words.
const OCP_VERSION = /^[0-9]+\.[0-9]+\.[0-9]+$/;
const RHCOS_VERSION = /^[0-9]+\.[0-9]+\.([0-9]{8}|[0-9]{12})-[0-9]+$/;

export function ocpVersionProblem(v: string): string | null {
  if (v.length < 5 || v.length > 10) return "ocpVersion must be between 5 and 10 characters long";
  if (!OCP_VERSION.test(v)) return "ocpVersion must match the OCP semver compatible format of x.y.z";
  return null;
}

export function rhcosVersionProblem(v: string): string | null {
  if (v.length < 14 || v.length > 21) return "rhcosVersion must be between 14 and 21 characters long";
  if (!RHCOS_VERSION.test(v))
    return "rhcosVersion must match format [major].[minor].[datestamp(YYYYMMDD)]-[buildnumber] or must match legacy format [major].[minor].[timestamp(YYYYMMDDHHmm)]-[buildnumber]";
  return null;
}

export const AcknowledgementRequestSchema = z
  .strictObject({
    cluster: z.string().trim().min(1, "name the cluster").max(253),
    mode: z.enum(ACK_MODES, { error: "mode must be OCPVersion, RHCOSVersion or None" }),
    ocpVersion: z.string().trim().optional(),
    rhcosVersion: z.string().trim().optional(),
    evidence: z
      .string()
      .trim()
      .min(10, "describe the evidence in at least 10 characters: how do you know which boot image the oldest machine uses?")
      .max(4000, "evidence may be at most 4000 characters"),
    machineSets: z.array(z.string().trim().min(1).max(253)).max(200).optional(),
  })
  .superRefine((r, ctx) => {
    const forbid = (field: "ocpVersion" | "rhcosVersion") => {
      if (r[field]) ctx.addIssue({ code: "custom", path: [field], message: `leave this empty when the mode is ${r.mode}` });
    };
    if (r.mode === "OCPVersion") {
      if (!r.ocpVersion)
        ctx.addIssue({
          code: "custom",
          path: ["ocpVersion"],
          message: "say which OCP version the oldest machine's boot image came with, e.g. 4.19.0",
        });
      else {
        const problem = ocpVersionProblem(r.ocpVersion);
        if (problem) ctx.addIssue({ code: "custom", path: ["ocpVersion"], message: problem });
      }
      forbid("rhcosVersion");
    } else if (r.mode === "RHCOSVersion") {
      if (!r.rhcosVersion)
        ctx.addIssue({
          code: "custom",
          path: ["rhcosVersion"],
          message: "say which RHCOS build the oldest machine boots, e.g. 9.6.20250101-0",
        });
      else {
        const problem = rhcosVersionProblem(r.rhcosVersion);
        if (problem) ctx.addIssue({ code: "custom", path: ["rhcosVersion"], message: problem });
      }
      forbid("ocpVersion");
    } else {
      forbid("ocpVersion");
      forbid("rhcosVersion");
    }
  });

export type AcknowledgementRequest = z.infer<typeof AcknowledgementRequestSchema>;

/** The value written to spec.bootImageSkewEnforcement for a request. */
export type SkewEnforcementSpec =
  | { mode: "None" }
  | { mode: "Manual"; manual: { mode: "OCPVersion"; ocpVersion: string } | { mode: "RHCOSVersion"; rhcosVersion: string } };

export function specOf(r: { mode: AckMode; ocpVersion?: string | null; rhcosVersion?: string | null }): SkewEnforcementSpec {
  if (r.mode === "None") return { mode: "None" };
  return r.mode === "OCPVersion"
    ? { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: r.ocpVersion! } }
    : { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: r.rhcosVersion! } };
}

/** spec.bootImageSkewEnforcement in the shape the cluster returns it, for comparisons. */
export type EnforcementSpecValue = {
  mode: string;
  manual?: { mode?: string | null; ocpVersion?: string | null; rhcosVersion?: string | null } | null;
};

const canonical = (v: EnforcementSpecValue | null | undefined) =>
  v
    ? JSON.stringify({
        mode: v.mode,
        manual:
          v.mode === "Manual"
            ? { mode: v.manual?.mode ?? null, ocpVersion: v.manual?.ocpVersion ?? null, rhcosVersion: v.manual?.rhcosVersion ?? null }
            : null,
      })
    : "null";

export const sameSpec = (a: EnforcementSpecValue | null | undefined, b: EnforcementSpecValue | null | undefined) =>
  canonical(a) === canonical(b);

export const describeSpec = (v: EnforcementSpecValue | null | undefined) =>
  !v ? "not set" : v.mode === "Manual" ? `Manual, ${v.manual?.ocpVersion ?? v.manual?.rhcosVersion ?? "no value"}` : v.mode;

/** What the MCO will report once the acknowledgement is in status (docs/openshift.md §17.2, §17.3). */
export type AckPrediction = { upgradeable: boolean; release: string | null; message: string };

export function predictUpgradeable(
  r: { mode: AckMode; ocpVersion?: string | null; rhcosVersion?: string | null },
  release: string | null,
  table: SkewLimitEntry[],
): AckPrediction {
  const limits = skewLimitsFor(release, table);
  if (r.mode === "None")
    return {
      upgradeable: true,
      release,
      message: "With mode None the MCO stops checking boot-image skew; new machines may fail to scale up from an old boot image.",
    };
  if (!limits)
    return {
      upgradeable: true,
      release,
      message: `${release ?? "This release"} does not enforce boot-image skew; the acknowledgement takes effect from the first release that does.`,
    };
  const verdict = checkBootImageSkew({ ocpVersion: r.ocpVersion ?? null, rhcosVersion: r.rhcosVersion ?? null }, limits, release);
  if (verdict.outcome === "below-limit") return { upgradeable: false, release, message: verdict.message };
  if (verdict.outcome === "within-limit")
    return {
      upgradeable: true,
      release,
      message: `${verdict.value} is within the limit (OCP ${limits.ocpVersion} / RHEL ${limits.rhelVersion}): the MCO will report Upgradeable=True for boot images.`,
    };
  return {
    upgradeable: true,
    release,
    message: `The MCO cannot parse ${verdict.outcome === "unparseable" ? verdict.value : "the value"} and does not block on it.`,
  };
}

export type AckCandidate = {
  /** The release the assessment is for: the cluster's own when it enforces, else the first that will. */
  release: string;
  reason: "below-limit" | "install-version-fallback";
  detail: string;
  assessment: SkewAssessment;
};

/**
 * Whether a cluster needs a manual acknowledgement at `target` (default: its own release when that
 * enforces skew, else the first release that will): its effective mode is Manual (or the MCO falls
 * back to the install version) and the value fails the limit; or the MCO relies on the install
 * version at all, which an acknowledgement replaces with the real oldest boot image.
 */
export function acknowledgementNeed(s: ClusterSnapshot, table: SkewLimitEntry[], target?: string | null): AckCandidate | null {
  const current = s.version?.current ?? null;
  const chosen = target ? parseOcpVersion(target) : null;
  const release = chosen ? formatVersion(chosen) : firstEnforcingRelease(current, table);
  if (!release) return null;
  const assessment = assessSkew(s, release, table);
  const e = assessment.enforcement;
  if (e.mode === "None" || !assessment.limits) return null;
  const below = assessment.verdict?.outcome === "below-limit";
  if ((e.mode === "Manual" || e.installVersionFallback) && below)
    return {
      release,
      reason: "below-limit",
      detail: `At ${release} the MCO compares ${assessment.verdict?.outcome === "below-limit" ? assessment.verdict.value : "the recorded boot image"} with the limit and blocks minor updates (${e.basis}).`,
      assessment,
    };
  if (e.installVersionFallback)
    return {
      release,
      reason: "install-version-fallback",
      detail: `The MCO assumes the install version ${e.value?.ocpVersion ?? ""} as the oldest boot image (${e.basis}); an acknowledgement records the real one.`,
      assessment,
    };
  return null;
}
