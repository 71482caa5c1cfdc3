/**
 * A bundle rollout's step on one cluster is the cluster's own bundle application (server/bundles):
 * the prechecks read live, the application recorded, then its PinnedImageSets created, every node's
 * pre-load followed on its MachineConfigNode; optionally the upgrade started once every node has
 * the images, and the sets unpinned once the upgrade completed. Each write is recorded before it is
 * made and read back from the cluster before it is repeated: after a stop, the step goes on from
 * what the application records and the cluster shows, and writes nothing it finds in place.
 */
import { clusterAnswer, withClusterClient } from "../clusters/access";
import { definitelyRefused, startClusterUpgrade, UpgradeRefused } from "../clusters/upgrade";
import { preloadFailure } from "../domain/rollouts/bundleChecks";
import type { RolloutRequest } from "../domain/rollouts/request";
import { upgradeProgress, type StepProgress } from "../domain/rollouts/upgradeProgress";
import { UserFacingError } from "../errors";
import { readClusterVersion, readMachineConfigPools } from "../kube/readers";
import { listApplications, updateApplication, type ApplicationRecord } from "../store/bundles";
import { findClusterSummary } from "../store/clusters";
import type { RolloutRecord } from "../store/rolloutRecords";
import { applyBundleAs, pinSets } from "../bundles/apply";
import type { Who } from "../bundles/live";
import { applicationProgress } from "../bundles/progress";
import { unpinApplication } from "../bundles/unpin";
import { observedPools } from "./observedPools";
import { requestOfKind, StepRefused, type Executor } from "./step";
import { mayWriteFollowUp } from "../store/rolloutClaims";

type BundleRequest = Extract<RolloutRequest, { kind: "bundle" }>;

const requestOf = (r: RolloutRecord): BundleRequest => requestOfKind(r, "bundle");
const digestOf = (r: RolloutRecord) => requestOf(r).bundle.replace(/^sha256:/, "");
const actorName = (r: RolloutRecord) => `rollout ${r.number}`;
const whoOf = (r: RolloutRecord): Who => ({ actor: actorName(r), role: null, ip: null });
const running = (note: string): StepProgress => ({ state: "running", note });

async function applicationOf(cluster: string, digest: string): Promise<ApplicationRecord | null> {
  const summary = await findClusterSummary(cluster);
  if (!summary) return null;
  return (await listApplications({ clusterId: summary.id })).find((a) => a.bundleDigest === digest) ?? null;
}

/**
 * The start of the upgrade, as a person's "Start upgrade" makes it: refused while anything blocks
 * it (a failing readiness check fails the step: a rollout overrides nothing), recorded on the
 * application, written, then moved to upgrading. A start recorded before a stop is first looked for
 * on the cluster (ClusterVersion spec.desiredUpdate), and written only when it is not there.
 */
async function startStep(a: ApplicationRecord, r: RolloutRecord, blockers: string[], onlyReadiness: boolean): Promise<StepProgress> {
  const cv = await withClusterClient(a.cluster, (client) => readClusterVersion(client));
  if (cv.status !== "ok") return running(`cannot read ClusterVersion now: ${cv.status === "error" ? clusterAnswer(cv.error) : cv.reason}`);
  const onCluster = cv.value.spec?.desiredUpdate?.image === a.releaseImage;
  if (!onCluster) {
    if (blockers.length && onlyReadiness) return { state: "failed", reason: `the upgrade cannot start: ${blockers.join(" ")}` };
    if (blockers.length) return running(`waiting to start the upgrade: ${blockers.join(" ")}`);
  }
  const intent = { upgradeStartedBy: actorName(r), upgradeStartedAt: a.upgradeStartedAt ? new Date(a.upgradeStartedAt) : new Date() };
  if (!a.upgradeStartedBy && !(await updateApplication(a.id, ["preloading"], intent)))
    return running("the application changed; looking again");
  if (!onCluster) {
    try {
      await startClusterUpgrade(a.cluster, {
        who: whoOf(r),
        version: a.releaseVersion,
        image: a.releaseImage,
        details: { application: a.id, rollout: r.number },
      });
    } catch (error) {
      if (!(error instanceof UpgradeRefused)) return running(`the start of the upgrade is not confirmed yet: ${clusterAnswer(error)}`);
      await updateApplication(a.id, ["preloading"], { upgradeStartedBy: null, upgradeStartedAt: null }).catch(() => undefined);
      return { state: "failed", reason: error.message };
    }
  }
  await updateApplication(
    a.id,
    ["preloading"],
    { state: "upgrading", ...intent },
    {
      ...whoOf(r),
      action: "bundle.upgrade.start",
      targetType: "cluster",
      targetId: a.cluster,
      summary: `started the upgrade of ${a.cluster} to ${a.releaseVersion} (rollout ${r.number}, every node has the bundle's images)`,
      details: { application: a.id, release: a.releaseVersion, rollout: r.number, foundOnCluster: onCluster },
    },
  );
  return running(`upgrading to ${a.releaseVersion}`);
}

/**
 * A step's further writes (the missing sets, the start of the upgrade, the unpin) are new writes:
 * made only when the runner lets this follow write and, checked in Postgres right before, the
 * rollout and this cluster's step are still running (a tick's view of the rollout may be minutes
 * old). A paused rollout or a skipped step holds them; an aborted rollout's step ends there,
 * saying what was not done. Null when the write may be made.
 */
async function heldBy(r: RolloutRecord, cluster: string, mayWrite: boolean, notDone: string): Promise<StepProgress | null> {
  if (mayWrite && (await mayWriteFollowUp({ id: r.id }, cluster))) return null;
  if (r.status === "aborted" || r.status === "completed")
    return { state: "failed", reason: `the rollout was ${r.status} first: ${notDone}` };
  return running(`held while the rollout or this cluster's step is not running: ${notDone} yet`);
}

/** Every node's pre-load, from its MachineConfigNode: failed in the MCO's words, done, or still pulling. */
async function preloadStep(a: ApplicationRecord, r: RolloutRecord, mayWrite: boolean): Promise<StepProgress> {
  const progress = await applicationProgress(a.id);
  if (progress.source !== "live") return running(progress.sourceNote ?? `cannot read ${a.cluster} now`);
  const failure = preloadFailure(progress.nodes);
  if (failure) return { state: "failed", reason: failure };
  if (progress.missingSets.length) {
    const held = await heldBy(
      r,
      a.cluster,
      mayWrite,
      `PinnedImageSet ${progress.missingSets.join(", ")} missing on the cluster was not created again`,
    );
    if (held) return held;
    await withClusterClient(a.cluster, (client) => pinSets(a, whoOf(r), client));
    return running(`PinnedImageSet ${progress.missingSets.join(", ")} was missing on the cluster; created it again`);
  }
  const { summary } = progress;
  if (!summary.allDone) return running(`pre-loading: ${summary.done} of ${summary.total} nodes have the images`);
  if (!requestOf(r).startUpgrade) return { state: "succeeded" };
  const held = await heldBy(r, a.cluster, mayWrite, "the upgrade was not started");
  if (held) return held;
  return startStep(a, r, progress.blockers, progress.overridable);
}

/** The upgrade until ClusterVersion history says Completed and every pool is updated; then unpinned when asked. */
async function upgradeStep(a: ApplicationRecord, r: RolloutRecord, mayWrite: boolean): Promise<StepProgress> {
  const progress = await withClusterClient(a.cluster, async (client) => {
    const [cv, pools] = await Promise.all([readClusterVersion(client), readMachineConfigPools(client)]);
    if (cv.status !== "ok")
      return running(`cannot read ClusterVersion now: ${cv.status === "error" ? clusterAnswer(cv.error) : cv.reason}`);
    return upgradeProgress(
      a.releaseVersion,
      {
        desiredVersion: cv.value.spec?.desiredUpdate?.version ?? null,
        history: cv.value.status?.history ?? [],
        conditions: cv.value.status?.conditions ?? [],
      },
      observedPools(pools),
    );
  });
  if (progress.state !== "succeeded") return progress;
  // The bundles' own follower may have noticed it first; either move is conditional on the state.
  const upgraded =
    (await updateApplication(
      a.id,
      ["upgrading"],
      { state: "upgraded", upgradedAt: new Date() },
      {
        ...whoOf(r),
        action: "bundle.upgrade.complete",
        targetType: "cluster",
        targetId: a.cluster,
        summary: `${a.cluster} completed the upgrade to ${a.releaseVersion}`,
        details: { application: a.id, rollout: r.number },
      },
    )) ?? a;
  return afterUpgrade(upgraded, r, mayWrite);
}

async function afterUpgrade(a: ApplicationRecord, r: RolloutRecord, mayWrite: boolean): Promise<StepProgress> {
  if (!requestOf(r).unpinAfter || a.state === "unpinned") return { state: "succeeded" };
  const held = await heldBy(r, a.cluster, mayWrite, "the bundle's images were not unpinned");
  // The upgrade itself is done: a rollout that ended first leaves the unpin to a person, and the step succeeded.
  if (held) return held.state === "failed" ? { state: "succeeded" } : held;
  try {
    const unpinned = await unpinApplication(a, whoOf(r), "the upgrade is done");
    return unpinned?.state === "unpinned" ? { state: "succeeded" } : running("unpinning the bundle's images");
  } catch (error) {
    return running(`unpinning the bundle's images: ${clusterAnswer(error)}`);
  }
}

export const bundle: Executor = {
  async write(cluster, r) {
    const digest = digestOf(r);
    const existing = await applicationOf(cluster, digest);
    // Applied already (by this rollout before a stop, or by a technician): nothing to write, the step follows it.
    if (existing && (existing.state !== "unpinned" || existing.upgradedAt)) return;
    try {
      await applyBundleAs(
        { digest, cluster, confirmedWarnings: [] },
        {
          who: whoOf(r),
          username: actorName(r),
          warningsAccepted: `accepted with the rollout's approval by ${r.approvedBy ?? "an approver"}`,
        },
      );
    } catch (error) {
      if (error instanceof UserFacingError && error.status < 500) throw new StepRefused(error.message);
      if (definitelyRefused(error)) throw new StepRefused(`${cluster} refused the PinnedImageSets: ${clusterAnswer(error)}`);
      throw error;
    }
  },
  async follow(cluster, r, mayWrite) {
    const a = await applicationOf(cluster, digestOf(r));
    if (!a) return running("the bundle application is not recorded yet");
    const { startUpgrade } = requestOf(r);
    switch (a.state) {
      case "applying": {
        const held = await heldBy(r, cluster, mayWrite, "its PinnedImageSets were not all created");
        if (held) return held;
        // Recorded, sets not all created (a stop, or the cluster did not answer): create the missing ones.
        await withClusterClient(cluster, (client) => pinSets(a, whoOf(r), client));
        return running(a.lastError ? `creating the PinnedImageSets: ${a.lastError}` : "creating the PinnedImageSets");
      }
      case "preloading":
        return preloadStep(a, r, mayWrite);
      case "upgrading":
        return startUpgrade ? upgradeStep(a, r, mayWrite) : { state: "succeeded" };
      case "upgraded":
        return startUpgrade ? afterUpgrade(a, r, mayWrite) : { state: "succeeded" };
      case "unpinning":
        if (a.upgradedAt) return startUpgrade ? afterUpgrade(a, r, mayWrite) : { state: "succeeded" };
        return { state: "failed", reason: "someone gave up the pre-load (unpinned the bundle) before it finished" };
      case "unpinned":
        return a.upgradedAt
          ? { state: "succeeded" }
          : { state: "failed", reason: "someone gave up the pre-load (unpinned the bundle) before it finished" };
    }
  },
};
