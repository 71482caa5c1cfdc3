import { isPrefetchRequeue } from "./bundleProgress";
import { assessSkew } from "./clusterSkew";
import { defaultTarget } from "./readiness";
import { MAX_STEPS } from "./readiness/model";
import { MCO_SKEW_LIMITS, UPGRADEABLE_SKEW_REASON, type SkewLimitEntry } from "./skew";
import { conditionOf, type ClusterSnapshot } from "./snapshot";
import { compareVersions, parseOcpVersion } from "./versions";

/**
 * What about one cluster needs someone's action, worked out once per changed snapshot by the
 * collector and kept beside the snapshot (ClusterState.signals), so that /metrics and the alert list
 * read a few small rows instead of re-evaluating every snapshot. A healthy cluster has none (null).
 * docs/alerts.md explains each signal and the alert built on it.
 */

/**
 * Where boot-image skew stops the way to `target`:
 * - "now": the cluster is blocked at its current release, so the minor update to `target` cannot start;
 * - "on-the-way": the MCO of a minor passed through (`at`) will block the next step;
 * - "after-update": the update to `target` goes, but once there the MCO blocks the next minor update.
 */
export type SkewBlockStage = "now" | "on-the-way" | "after-update";

export type SkewBlockSignal = {
  /** "next-minor": the default target (current minor + 1); "newest": the channel's newest update, a later minor. */
  targetKind: "next-minor" | "newest";
  target: string;
  stage: SkewBlockStage;
  /** Where the block is decided: the release whose MCO reports it. */
  at: string;
  /** "cluster": the cluster reports it now; "predicted": Fleetskew applies the MCO's rules. */
  source: "cluster" | "predicted";
  /** The cluster's channel offers the target (an available or conditional update). */
  offered: boolean;
  message: string;
};

export type ClusterSignals = {
  skewBlocks: SkewBlockSignal[];
  /** ClusterVersion (else ClusterOperator machine-config) reports Upgradeable=False. */
  upgradeable: { reason: string; message: string; from: "ClusterVersion" | "machine-config" } | null;
  /** Pinned image sets whose pre-load failed on a node (first ones only, see PINNED_LIMIT). */
  pinnedFailures: { node: string; set: string; error: string }[];
  /** How many node/set pairs failed in all (pinnedFailures may list fewer). */
  pinnedFailureCount: number;
};

/** Enough to name the nodes in an alert; a cluster with hundreds of failing nodes still costs one row. */
const PINNED_LIMIT = 20;
const MESSAGE_LIMIT = 400;
const clip = (text: string | null | undefined) => {
  const t = (text ?? "").trim();
  return t.length > MESSAGE_LIMIT ? `${t.slice(0, MESSAGE_LIMIT - 1)}…` : t;
};

/** The highest update the channel offers (available or conditional), whatever its minor. */
export function newestOffered(s: ClusterSnapshot): string | null {
  const versions = [...(s.version?.availableUpdates ?? []), ...(s.version?.conditionalUpdates ?? []).map((u) => u?.version)].filter(
    (v): v is string => typeof v === "string" && !!parseOcpVersion(v),
  );
  return versions.sort((a, b) => compareVersions(parseOcpVersion(b)!, parseOcpVersion(a)!))[0] ?? null;
}

const isOffered = (s: ClusterSnapshot, target: string) =>
  (s.version?.availableUpdates ?? []).includes(target) || (s.version?.conditionalUpdates ?? []).some((u) => u?.version === target);

/**
 * Boot-image skew on the way to `target`, by the same rules as the readiness check (docs/openshift.md
 * §17): the block the cluster reports now, one predicted from its own confirmed record, one at a minor
 * passed through, or one once at the target.
 */
export function skewBlockOnTheWay(
  s: ClusterSnapshot,
  target: string,
  limits: SkewLimitEntry[] = MCO_SKEW_LIMITS,
): Omit<SkewBlockSignal, "targetKind" | "offered"> | null {
  const current = parseOcpVersion(s.version?.current);
  const t = parseOcpVersion(target);
  if (!current || !t || t.major !== current.major || t.minor <= current.minor) return null;
  const co = conditionOf(s.machineConfigOperator, "Upgradeable");
  if (co?.status === "False" && co.reason === UPGRADEABLE_SKEW_REASON)
    return { target, stage: "now", at: s.version!.current!, source: "cluster", message: clip(co.message) };
  const now = assessSkew(s, s.version!.current!, limits);
  // A block predicted at the current release counts only from the cluster's own record (as the readiness check).
  if (now.block && now.enforcement.source === "cluster")
    return { target, stage: "now", at: s.version!.current!, source: "predicted", message: clip(now.block.message) };
  for (let m = current.minor + 1; m < t.minor && m <= current.minor + MAX_STEPS; m++) {
    const via = `${t.major}.${m}.0`;
    const a = assessSkew(s, via, limits);
    if (a.block) return { target, stage: "on-the-way", at: `${t.major}.${m}`, source: "predicted", message: clip(a.block.message) };
  }
  const later = assessSkew(s, target, limits);
  if (later.block) return { target, stage: "after-update", at: target, source: "predicted", message: clip(later.block.message) };
  return null;
}

function upgradeableOf(s: ClusterSnapshot): ClusterSignals["upgradeable"] {
  const cv = conditionOf(s.version?.conditions, "Upgradeable");
  if (cv?.status === "False") return { reason: cv.reason || "(none)", message: clip(cv.message), from: "ClusterVersion" };
  const co = conditionOf(s.machineConfigOperator, "Upgradeable");
  if (co?.status === "False") return { reason: co.reason || "(none)", message: clip(co.message), from: "machine-config" };
  return null;
}

/** Node/set pairs whose latest generation failed, as the pinned-images readiness check counts them (a prefetch timeout is a retry, not a failure). */
function pinnedFailuresOf(s: ClusterSnapshot): { node: string; set: string; error: string }[] {
  const failed: { node: string; set: string; error: string }[] = [];
  for (const n of Array.isArray(s.nodes) ? s.nodes : [])
    for (const p of Array.isArray(n?.pinned) ? n.pinned : []) {
      const desired = p.desiredGeneration ?? 0;
      if ((p.currentGeneration ?? 0) >= desired && desired > 0) continue;
      if (p.lastFailedGeneration != null && p.lastFailedGeneration >= desired && p.error && !isPrefetchRequeue(p.error))
        failed.push({ node: n.name, set: p.set, error: clip(p.error) });
    }
  return failed;
}

/** The signals of one snapshot; null when nothing needs action (a healthy cluster costs nothing downstream). */
export function clusterSignals(s: ClusterSnapshot, limits: SkewLimitEntry[] = MCO_SKEW_LIMITS): ClusterSignals | null {
  const skewBlocks: SkewBlockSignal[] = [];
  const next = defaultTarget(s);
  if (next) {
    const block = skewBlockOnTheWay(s, next, limits);
    if (block) skewBlocks.push({ ...block, targetKind: "next-minor", offered: isOffered(s, next) });
  }
  const newest = newestOffered(s);
  const nextMinor = parseOcpVersion(next);
  const newestVersion = parseOcpVersion(newest);
  if (newest && nextMinor && newestVersion && newestVersion.minor > nextMinor.minor) {
    const block = skewBlockOnTheWay(s, newest, limits);
    if (block) skewBlocks.push({ ...block, targetKind: "newest", offered: true });
  }
  const upgradeable = upgradeableOf(s);
  const pinned = pinnedFailuresOf(s);
  if (!skewBlocks.length && !upgradeable && !pinned.length) return null;
  return { skewBlocks, upgradeable, pinnedFailures: pinned.slice(0, PINNED_LIMIT), pinnedFailureCount: pinned.length };
}
