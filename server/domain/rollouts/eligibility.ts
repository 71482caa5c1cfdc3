/**
 * Whether a selected cluster may enter a rollout, judged from what the collector stored: the first
 * reason it may not, in plain words, or null. Checks that need the cluster itself (a bundle's disk
 * and pod prechecks, readiness read live) run again when the cluster's step starts.
 */
import { compareVersions, parseOcpVersion } from "../versions";

export type CandidateFacts = {
  name: string;
  labels: Record<string, string>;
  /** Imported from dumps, or a hub cluster whose lease expired or that the hub removed. */
  offline: boolean;
  /** The last sweep failed, or is older than three sweep intervals. */
  stale: boolean;
  lastContactError: string | null;
  version: string | null;
  /** The release the stored readiness was judged for (the next minor), its verdict and first blocker. */
  readinessTarget: string | null;
  readinessStatus: string;
  readinessBlocker: string | null;
  /** ClusterVersion status.availableUpdates and status.conditionalUpdates, as the collector read them. */
  availableUpdates: string[];
  conditionalUpdates: { version: string; risks: { name: string }[] }[];
  /** The cluster's API serves MachineConfiguration spec.bootImageSkewEnforcement (4.20 and later). */
  acknowledgementServed: boolean;
  /** Another rollout that has not ended and includes this cluster. */
  activeRollout: string | null;
};

export type UpgradeIntent = { kind: "upgrade"; target: string; acceptRisks: string[] };
export type BundleIntent = { kind: "bundle"; release: string };
export type AcknowledgementIntent = { kind: "acknowledgement" };
export type RolloutIntent = UpgradeIntent | BundleIntent | AcknowledgementIntent;

const minorOf = (version: string) => version.split(".").slice(0, 2).join(".");

function commonExclusion(c: CandidateFacts, kind: RolloutIntent["kind"]): string | null {
  if (c.activeRollout) return `already in rollout ${c.activeRollout}, which has not ended`;
  if (c.offline) return "offline: Fleetskew does not reach it (imported from dumps, or its hub has not heard from it)";
  if (c.stale) return `not reachable now${c.lastContactError ? ` (${c.lastContactError})` : ""}: its last sweep failed or is too old`;
  if (!c.version && kind !== "acknowledgement") return "its version is not known yet: it has not been swept";
  return null;
}

function upgradeExclusion(c: CandidateFacts, intent: UpgradeIntent): string | null {
  const current = parseOcpVersion(c.version);
  const target = parseOcpVersion(intent.target);
  if (current && target && compareVersions(target, current) <= 0) return `it already runs ${c.version}, not older than ${intent.target}`;
  if (c.readinessTarget && minorOf(intent.target) === c.readinessTarget && c.readinessStatus === "fail")
    return `not ready for ${c.readinessTarget}: ${c.readinessBlocker ?? "a readiness check fails"}`;
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
