/**
 * Whether a selected cluster may enter a rollout, judged from what the collector stored: the first
 * reason it may not, in plain words, or null. An upgrade is judged for the plan's own target, as the
 * CVO would take it (docs/rollouts.md, "Each cluster is checked before it enters"). Checks that need
 * the cluster itself (a bundle's disk and pod prechecks) run again when the cluster's step starts.
 */
import { blockingCauses, evaluateUpdateGates, type UpdateGateParts } from "../readiness";
import { compareVersions, formatMinor, parseOcpVersion } from "../versions";
import { updateHopRefusal } from "./updateHop";

export type CandidateFacts = {
  name: string;
  labels: Record<string, string>;
  /** Imported from dumps, or a hub cluster whose lease expired or that the hub removed. */
  offline: boolean;
  /** The last sweep failed, or is older than three sweep intervals. */
  stale: boolean;
  lastContactError: string | null;
  version: string | null;
  /**
   * The release the stored readiness was judged for (the cluster's default target, in the next
   * minor), its verdict and first blocker: what the fleet page shows.
   */
  readinessTarget: string | null;
  readinessStatus: string;
  readinessBlocker: string | null;
  /** ClusterVersion status.availableUpdates and status.conditionalUpdates, as the collector read them. */
  availableUpdates: string[];
  conditionalUpdates: { version: string; risks: { name: string }[] }[];
  /** The parts of the stored snapshot the update gates read, to judge them for any target. */
  gates: UpdateGateParts;
  /** The cluster's API serves MachineConfiguration spec.bootImageSkewEnforcement (4.20 and later). */
  acknowledgementServed: boolean;
  /** Another rollout that has not ended and includes this cluster. */
  activeRollout: string | null;
};

export type UpgradeIntent = { kind: "upgrade"; target: string; acceptRisks: string[] };
export type BundleIntent = { kind: "bundle"; release: string };
export type AcknowledgementIntent = { kind: "acknowledgement" };
export type RolloutIntent = UpgradeIntent | BundleIntent | AcknowledgementIntent;

function commonExclusion(c: CandidateFacts, kind: RolloutIntent["kind"]): string | null {
  if (c.activeRollout) return `already in rollout ${c.activeRollout}, which has not ended`;
  if (c.offline) return "offline: Fleetskew does not reach it (imported from dumps, or its hub has not heard from it)";
  if (c.stale) return `not reachable now${c.lastContactError ? ` (${c.lastContactError})` : ""}: its last sweep failed or is too old`;
  if (!c.version && kind !== "acknowledgement") return "its version is not known yet: it has not been swept";
  return null;
}

// Clusters in the same state share their parts (the store decodes each distinct state once): judge each once per target.
const gateVerdicts = new WeakMap<UpdateGateParts, Map<string, string | null>>();

function gateBlocker(parts: UpdateGateParts, target: string): string | null {
  let byTarget = gateVerdicts.get(parts);
  if (!byTarget) gateVerdicts.set(parts, (byTarget = new Map()));
  let verdict = byTarget.get(target);
  if (verdict === undefined) {
    const first = blockingCauses(evaluateUpdateGates(parts, target))[0];
    verdict = first ? `${first.title}: ${first.detail}` : null;
    byTarget.set(target, verdict);
  }
  return verdict;
}

function upgradeExclusion(c: CandidateFacts, intent: UpgradeIntent): string | null {
  const current = parseOcpVersion(c.version);
  const target = parseOcpVersion(intent.target);
  if (current && target && compareVersions(target, current) <= 0) return `it already runs ${c.version}, not older than ${intent.target}`;
  if (current && target) {
    const refused = updateHopRefusal(current, target);
    if (refused) return refused;
  }
  // The update gates judged for this target: Upgradeable=False and admin gates block a minor update, not a z-stream one.
  const blocker = gateBlocker(c.gates, intent.target);
  if (blocker) return `not ready for ${intent.target}: ${blocker}`;
  // The rest of the fleet page's verdict (pools, skew, alerts…) holds for a target of the minor it was judged for.
  const judged = parseOcpVersion(c.readinessTarget);
  const sameUpdate =
    !!judged && !!target && !!current && formatMinor(judged) === formatMinor(target) && formatMinor(current) !== formatMinor(target);
  if (sameUpdate && c.readinessStatus === "fail") {
    const minor = formatMinor(target!);
    const judgedFor = c.readinessTarget === minor ? "" : ` (as its readiness for ${c.readinessTarget} shows)`;
    return `not ready for ${minor}: ${c.readinessBlocker ?? "a readiness check fails"}${judgedFor}`;
  }
  if (c.availableUpdates.includes(intent.target)) return null;
  const conditional = c.conditionalUpdates.find((u) => u.version === intent.target);
  if (!conditional) return `its ClusterVersion does not list ${intent.target} as an update (not in its channel, or not a supported path)`;
  const unaccepted = conditional.risks.map((r) => r.name).filter((name) => !intent.acceptRisks.includes(name));
  if (unaccepted.length)
    return `${intent.target} is only a conditional update for it, with risks the plan does not accept: ${unaccepted.join(", ")}`;
  return null;
}

function bundleExclusion(c: CandidateFacts, intent: BundleIntent): string | null {
  const current = parseOcpVersion(c.version);
  const release = parseOcpVersion(intent.release);
  if (current && release && compareVersions(release, current) <= 0)
    return `it already runs ${c.version}; the bundle carries ${intent.release}`;
  return null;
}

export function exclusionReason(c: CandidateFacts, intent: RolloutIntent): string | null {
  const common = commonExclusion(c, intent.kind);
  if (common) return common;
  if (intent.kind === "upgrade") return upgradeExclusion(c, intent);
  if (intent.kind === "bundle") return bundleExclusion(c, intent);
  if (!c.acknowledgementServed) return "its release has no boot-image skew enforcement to acknowledge (before 4.20)";
  return null;
}
