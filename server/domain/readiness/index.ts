import { MCO_SKEW_LIMITS, type SkewLimitEntry } from "../skew";
import type { ClusterSnapshot } from "../snapshot";
import { compareVersions, parseOcpVersion } from "../versions";
import {
  criticalAlertsCheck,
  imagePullAlertsCheck,
  nodeAlertsCheck,
  pdbAlertsCheck,
  updatePrecheckAlertsCheck,
  virtAlertsCheck,
} from "./alerts";
import { bootImageSkewCheck, machineSetsSkippedCheck, rhelMajorChangeCheck } from "./bootImages";
import {
  adminAcksCheck,
  conditionalRisksCheck,
  failingCheck,
  invalidCheck,
  progressingCheck,
  releaseAcceptedCheck,
  retrievedUpdatesCheck,
  targetVersionCheck,
  upgradeableCheck,
} from "./clusterVersion";
import {
  parseTarget,
  updateKindOf,
  type CheckStatus,
  type Context,
  type Draft,
  type GateContext,
  type Readiness,
  type ReadinessCheck,
  type UpdateGateParts,
} from "./model";
import { bareMetalCheck, singleNodeCheck } from "./platform";
import { osStreamRuncCheck } from "./osStreams";
import { registryLessCheck } from "./registryLess";
import { imageModeCheck, pinnedImagesCheck, poolsDegradedCheck, poolsPausedCheck, poolsUpdatingCheck } from "./pools";

export type { CheckStatus, Evidence, Readiness, ReadinessCheck, UpdateGateParts, UpdateKind } from "./model";

/**
 * Upgrade readiness: can this cluster update to a target release, and if not, what stands in the way.
 * Checks use OpenShift's own signals (docs/openshift.md §17, §20, §21). Pure and
 * total: any snapshot, any target string gives a result; missing data gives `unknown` with the reason.
 */

const SEVERITY: Record<CheckStatus, number> = { pass: 0, unknown: 1, warn: 2, fail: 3 };

/** fail > warn > unknown > pass. */
export const worstStatus = (statuses: CheckStatus[]): CheckStatus =>
  statuses.reduce<CheckStatus>((worst, s) => (SEVERITY[s] > SEVERITY[worst] ? s : worst), "pass");

/**
 * The default target is the next minor. Recommended updates (availableUpdates) of current minor + 1 are
 * preferred, highest first, because that is what `oc adm upgrade` and the console offer by default; else
 * the highest conditional (not-recommended) update of that minor, whose risks the readiness then shows;
 * else the minor alone (`4.23`) when the update service lists nothing for it (disconnected, or not yet
 * in the channel). Null when the current version is unknown.
 */
export function defaultTarget(s: ClusterSnapshot): string | null {
  const current = parseOcpVersion(s?.version?.current);
  if (!current) return null;
  const nextMinor = (v: string) => {
    const p = parseOcpVersion(v);
    return !!p && p.major === current.major && p.minor === current.minor + 1;
  };
  const highest = (versions: string[]) =>
    versions
      .filter((v) => typeof v === "string" && nextMinor(v))
      // A final release before its release candidates of the same x.y.z.
      .sort((a, b) => compareVersions(parseOcpVersion(b)!, parseOcpVersion(a)!) || Number(a.includes("-")) - Number(b.includes("-")))[0] ??
    null;
  return (
    highest(s.version?.availableUpdates ?? []) ??
    highest((s.version?.conditionalUpdates ?? []).map((u) => u?.version)) ??
    `${current.major}.${current.minor + 1}`
  );
}

type Check<C> = { id: string; title: string; run: (c: C) => Draft };

/**
 * The checks that read only ClusterVersion, the MCO's Upgradeable condition and the admin gates
 * (UpdateGateParts): the ones that decide whether the CVO takes an update to a given target at all.
 */
const UPDATE_GATE_CHECKS: Check<GateContext>[] = [
  { id: "target-version", title: "Target version", run: targetVersionCheck },
  { id: "cv-upgradeable", title: "Upgradeable condition", run: upgradeableCheck },
  { id: "cv-failing", title: "Failing condition", run: failingCheck },
  { id: "cv-invalid", title: "ClusterVersion spec", run: invalidCheck },
  { id: "cv-progressing", title: "Update in progress", run: progressingCheck },
  { id: "cv-retrieved-updates", title: "Update recommendations", run: retrievedUpdatesCheck },
  { id: "cv-release-accepted", title: "Release payload", run: releaseAcceptedCheck },
  { id: "admin-acks", title: "Admin gates", run: adminAcksCheck },
];

const CHECKS: Check<Context>[] = [
  ...UPDATE_GATE_CHECKS,
  { id: "pools-degraded", title: "Degraded pools", run: poolsDegradedCheck },
  { id: "pools-paused", title: "Paused pools", run: poolsPausedCheck },
  { id: "pools-updating", title: "Pools updating", run: poolsUpdatingCheck },
  { id: "image-mode-builds", title: "Image-mode builds", run: imageModeCheck },
  { id: "boot-image-skew", title: "Boot-image skew", run: bootImageSkewCheck },
  { id: "machinesets-skipped", title: "MachineSets the MCO skips", run: machineSetsSkippedCheck },
  { id: "pinned-images", title: "Pinned images", run: pinnedImagesCheck },
  { id: "conditional-update-risks", title: "Update risks", run: conditionalRisksCheck },
  { id: "rhel-major-change", title: "RHEL major change", run: rhelMajorChangeCheck },
  { id: "os-stream-runc", title: "RHEL 10 pools and runc", run: osStreamRuncCheck },
  { id: "single-node", title: "Single-node cluster", run: singleNodeCheck },
  { id: "bare-metal", title: "Bare metal", run: bareMetalCheck },
  { id: "registry-less", title: "Registry-less release source", run: registryLessCheck },
  // The groups `oc adm upgrade recommend` checks in the firing alerts (./alerts.ts).
  { id: "alerts-critical", title: "Critical alerts", run: criticalAlertsCheck },
  { id: "alerts-pdb", title: "PodDisruptionBudget alerts", run: pdbAlertsCheck },
  { id: "alerts-image-pull", title: "Image pull alerts", run: imagePullAlertsCheck },
  { id: "alerts-node", title: "Node alerts", run: nodeAlertsCheck },
  { id: "alerts-update-precheck", title: "Update precheck alerts", run: updatePrecheckAlertsCheck },
  { id: "alerts-virt", title: "Virtualization alerts", run: virtAlertsCheck },
];

/** A cluster of which nothing was read: every check then says it cannot tell. */
const NOTHING_READ: ClusterSnapshot = {
  version: null,
  platform: null,
  topology: null,
  machineConfigOperator: null,
  enforcement: null,
  managedMachineSets: { spec: null, status: null },
  optedInAt: null,
  bootImageConditions: [],
  bootImageRelease: null,
  streamImages: [],
  machineSets: [],
  pools: [],
  nodes: [],
  pinnedImageSets: [],
  imageMode: [],
  adminGates: null,
  adminAcks: null,
  problems: [],
};

export function evaluateReadiness(s: ClusterSnapshot | null, target: string, options: { limits?: SkewLimitEntry[] } = {}): Readiness {
  const snapshot = s && typeof s === "object" ? s : NOTHING_READ;
  return runChecks(CHECKS, { ...gateContext(snapshot, target), s: snapshot, limits: options.limits ?? MCO_SKEW_LIMITS }, target);
}

/**
 * Readiness for `target` judged by the update gates alone (UPDATE_GATE_CHECKS), from the small part
 * of a snapshot they read: the same checks, words and verdicts as evaluateReadiness gives for them.
 */
export function evaluateUpdateGates(parts: UpdateGateParts, target: string): Readiness {
  return runChecks(UPDATE_GATE_CHECKS, gateContext(parts, target), target);
}

function gateContext(s: UpdateGateParts, target: string): GateContext {
  const t = parseTarget(target);
  const currentText = typeof s.version?.current === "string" ? s.version.current : null;
  const current = parseOcpVersion(currentText);
  const kind = updateKindOf(current, t);
  return {
    s,
    target: t,
    current,
    currentText: current ? currentText : null,
    kind,
    minorUpdate: kind === "minor" || kind === "multi-minor",
    limits: MCO_SKEW_LIMITS,
  };
}

function runChecks<C extends GateContext>(list: Check<C>[], context: C, target: string): Readiness {
  const checks = list.map(({ id, title, run }): ReadinessCheck => {
    try {
      return { id, title, ...run(context) };
    } catch (e) {
      // Snapshots come from stored history too; an unexpected shape must not take the whole checklist down.
      return {
        id,
        title,
        status: "unknown",
        detail: `This check could not be evaluated: ${e instanceof Error ? e.message : String(e)}.`,
        evidence: [],
        remediation: null,
      };
    }
  });
  return {
    target: typeof target === "string" ? target : String(target),
    current: typeof context.s.version?.current === "string" ? context.s.version.current : null,
    updateKind: context.kind,
    status: worstStatus(checks.map((c) => c.status)),
    checks,
    blockers: checks.filter((c) => c.status === "fail").map((c) => c.id),
  };
}

/**
 * The failing checks that name a cause. Upgradeable=False is often how the cluster reports a cause
 * another check names (admin gates, skew, a degraded pool): then that check is the cause, and the
 * condition is left out; with a cause of its own it stays.
 */
export function blockingCauses(readiness: Readiness | null | undefined): ReadinessCheck[] {
  const failing = (readiness?.checks ?? []).filter((c) => c?.status === "fail");
  const failingIds = new Set(failing.map((c) => c.id));
  return failing.filter((c) => !(c.id === "cv-upgradeable" && c.causedBy?.length && c.causedBy.every((id) => failingIds.has(id))));
}

/** Fleet roll-up: clusters per overall status (no readiness counts as unknown) and the most common failing check. */
export function rollUpReadiness(items: { cluster: string; readiness: Readiness | null }[]): {
  counts: Record<CheckStatus, number>;
  mostCommonBlocker: { id: string; title: string; clusters: number } | null;
  blockers: { id: string; title: string; clusters: number }[];
} {
  const counts: Record<CheckStatus, number> = { pass: 0, warn: 0, fail: 0, unknown: 0 };
  const blockers = new Map<string, { title: string; clusters: number }>();
  for (const item of items ?? []) {
    const r = item?.readiness;
    const status = r && r.status in counts ? r.status : "unknown";
    counts[status]++;
    // A cluster counts once per failing check id, even if a malformed readiness repeats one.
    const failing = new Map(blockingCauses(r).map((c) => [c.id, c.title]));
    for (const [id, title] of failing) {
      const entry = blockers.get(id) ?? { title, clusters: 0 };
      entry.clusters++;
      blockers.set(id, entry);
    }
  }
  let best: { id: string; title: string; clusters: number } | null = null;
  // Ties go to the alphabetically first id, so the answer does not depend on input order.
  for (const [id, { title, clusters }] of [...blockers].sort(([a], [b]) => a.localeCompare(b)))
    if (!best || clusters > best.clusters) best = { id, title, clusters };
  const all = [...blockers]
    .map(([id, { title, clusters }]) => ({ id, title, clusters }))
    .sort((a, b) => b.clusters - a.clusters || a.id.localeCompare(b.id));
  return { counts, mostCommonBlocker: best, blockers: all };
}
