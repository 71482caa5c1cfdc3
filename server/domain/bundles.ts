import type { ProgressSummary } from "./bundleProgress";
import type { CheckStatus } from "./readiness";
import { conditionOf, type ClusterSnapshot } from "./snapshot";

/**
 * The life of a bundle application on one cluster and the rules for moving it on: which state may
 * follow which, what keeps "Start upgrade" back, and when the cluster runs the bundle's release.
 * Pure: server/bundles reads the cluster and the store and writes the changes these decide.
 *
 *   applying → preloading → upgrading → upgraded → unpinning → unpinned
 *   (applying | preloading) → unpinning → unpinned: the pre-load given up
 *   unpinned → applying: the bundle applied again
 */
export type ApplicationState = "applying" | "preloading" | "upgrading" | "upgraded" | "unpinning" | "unpinned";

/** States the background follower works on (see server/bundles/follower.ts). */
export const ACTIVE_STATES: ApplicationState[] = ["applying", "preloading", "upgrading", "unpinning"];

/** Where an unpin may start: after the upgrade, to give up a pre-load (also one still being set up), or to finish one. */
export const UNPIN_FROM: ApplicationState[] = ["upgraded", "preloading", "applying", "unpinning"];

/** Two people (or a person and the follower) changed one application at once; the one who lost reads this. */
export const CONCURRENT_CHANGE = "Someone else changed this application at the same moment; reload the page";

type Application = {
  state: ApplicationState;
  releaseVersion: string;
  upgradeStartedBy: string | null;
  upgradedAt: string | null;
};

/** Why an unpin is refused now; null when it may go ahead. */
export function unpinRefusal(a: Pick<Application, "state" | "releaseVersion">): string | null {
  if (UNPIN_FROM.includes(a.state)) return null;
  return a.state === "unpinned" ? "Already unpinned" : `Cannot unpin while the cluster is ${a.state} to ${a.releaseVersion}`;
}

/** The reason an unpin records: the upgrade finished, or the pre-load was given up. */
export const unpinReason = (a: Pick<Application, "upgradedAt">) => (a.upgradedAt ? "the upgrade is done" : "pre-load given up");

/** Why "Start upgrade" is refused in this state; null in the one state it may start from, pre-loading. */
export function startRefusal(a: Pick<Application, "state" | "releaseVersion" | "upgradeStartedBy">): string | null {
  if (a.state === "upgrading" || a.state === "upgraded")
    return `The upgrade to ${a.releaseVersion} was already started by ${a.upgradeStartedBy ?? "someone"}`;
  if (a.state !== "preloading") return `This application is ${a.state}; there is nothing to start`;
  return null;
}

type HistoryEntry = { version?: string | null; state?: string | null };

/** ClusterVersion status.history has a Completed entry for `release`: the cluster has run it. */
export const releaseCompleted = (history: HistoryEntry[] | null | undefined, release: string) =>
  (history ?? []).some((h) => h.version === release && h.state === "Completed");

/** How long a recorded start may stay without its state change before the follower settles it from the cluster. */
export const START_INTERRUPTED_AFTER_MS = 2 * 60_000;

/**
 * A pre-loading application whose cluster already asks for the bundle's release image
 * (ClusterVersion spec.desiredUpdate) is under way: its start was interrupted between the cluster
 * write and the state change, or someone set it outside Fleetskew. Not so when the start was
 * recorded moments ago (it may still reach its own state change), nor when nobody started it here
 * and the cluster already ran that release (a desiredUpdate left from an earlier upgrade).
 */
export function startFoundOnCluster(
  a: { releaseImage: string; releaseVersion: string; upgradeStartedAt: string | null },
  cluster: { desiredImage: string | null | undefined; history: HistoryEntry[] | null | undefined },
  now: number,
): boolean {
  if (cluster.desiredImage !== a.releaseImage) return false;
  const intentAt = a.upgradeStartedAt ? Date.parse(a.upgradeStartedAt) : null;
  if (intentAt !== null && now - intentAt < START_INTERRUPTED_AFTER_MS) return false;
  return !(intentAt === null && releaseCompleted(cluster.history, a.releaseVersion));
}

export type UpgradeState = {
  /** The release the cluster runs, and whether the bundle's release is in place. */
  current: string | null;
  desired: string | null;
  completed: boolean;
  progressing: string | null;
  /** ReleaseAccepted=False: the CVO refused the release (e.g. Upgradeable=False for a minor update). */
  refused: string | null;
};

export function upgradeStateOf(s: ClusterSnapshot, release: string): UpgradeState {
  const progressing = conditionOf(s.version?.conditions, "Progressing");
  const accepted = conditionOf(s.version?.conditions, "ReleaseAccepted");
  return {
    current: s.version?.current ?? null,
    desired: s.version?.desired ?? null,
    completed: releaseCompleted(s.version?.history, release),
    progressing: progressing?.status === "True" ? (progressing.message ?? "in progress") : null,
    refused:
      accepted?.status === "False" && s.version?.desired !== s.version?.current
        ? (accepted.message ?? "the release was not accepted")
        : null,
  };
}

export type UpgradeBlocker = { text: string; overridable: boolean };

/**
 * What keeps "Start upgrade" back, in words. Only a failing readiness check may be overridden (by an
 * admin, with a written reason); nodes without the images, missing sets, a cluster already updating
 * and another bundle's upgrade still running must be resolved.
 */
export function upgradeBlockers(input: {
  application: { state: ApplicationState; releaseVersion: string };
  summary: ProgressSummary;
  readinessChecks: { title: string; detail: string; status: CheckStatus }[];
  missingSets: string[];
  upgrade: UpgradeState;
  /** Another application of the same cluster whose upgrade is under way. */
  otherUpgrade: { releaseVersion: string; upgradeStartedBy: string | null } | null;
}): UpgradeBlocker[] {
  const { application, summary, upgrade, otherUpgrade } = input;
  const found: UpgradeBlocker[] = [];
  const block = (text: string, overridable = false) => found.push({ text, overridable });
  if (application.state === "applying") block("The PinnedImageSets are still being created.");
  if (application.state !== "preloading") return found;
  if (!summary.allDone) block(`${summary.total - summary.done} of ${summary.total} nodes do not have the images yet.`);
  for (const check of input.readinessChecks.filter((c) => c.status === "fail"))
    block(`Readiness for ${application.releaseVersion}: ${check.title}: ${check.detail}`, true);
  if (input.missingSets.length)
    block(`PinnedImageSet ${input.missingSets.join(", ")} is missing on the cluster; Fleetskew creates it again.`);
  if (upgrade.progressing || (upgrade.desired && upgrade.current && upgrade.desired !== upgrade.current))
    block(
      `The cluster is already updating${upgrade.desired && upgrade.desired !== upgrade.current ? ` to ${upgrade.desired}` : ""}; starting another update now would change its target midway.`,
    );
  if (otherUpgrade)
    block(
      `The upgrade to ${otherUpgrade.releaseVersion} (another bundle) was started by ${otherUpgrade.upgradeStartedBy ?? "someone"} and has not completed.`,
    );
  return found;
}

/** Every blocker is one an admin may override: the only case in which "Start upgrade anyway" is offered. */
export const overridable = (blockers: UpgradeBlocker[]) => blockers.length > 0 && blockers.every((b) => b.overridable);
