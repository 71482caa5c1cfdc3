import { clusterAnswer, withClusterClient } from "../clusters/access";
import { ACTIVE_STATES, releaseCompleted, startFoundOnCluster } from "../domain/bundles";
import type { ClusterVersion } from "../kube/schemas";
import { readClusterVersion, readPinnedImageSets } from "../kube/readers";
import { mayWriteFollowUp } from "../store/rolloutClaims";
import { listApplications, updateApplication, type ApplicationRecord } from "../store/bundles";
import { pinSets } from "./apply";
import { SYSTEM } from "./live";
import { unpinApplication } from "./unpin";

/**
 * A pre-loading application whose cluster already asks for the bundle's release image
 * (ClusterVersion spec.desiredUpdate): the start was interrupted between the cluster write and the
 * state change, or someone set it outside Fleetskew. It moves on to upgrading, so the upgrade is
 * followed and no second start is offered. True when it did.
 */
async function settleStartedUpgrade(application: ApplicationRecord, cv: ClusterVersion, now: number): Promise<boolean> {
  if (!startFoundOnCluster(application, { desiredImage: cv.spec?.desiredUpdate?.image, history: cv.status?.history }, now)) return false;
  const settled = await updateApplication(
    application.id,
    ["preloading"],
    { state: "upgrading", upgradeStartedAt: application.upgradeStartedAt ? new Date(application.upgradeStartedAt) : new Date(now) },
    {
      ...SYSTEM,
      action: "bundle.upgrade.start",
      targetType: "cluster",
      targetId: application.cluster,
      summary: application.upgradeStartedBy
        ? `found the upgrade of ${application.cluster} to ${application.releaseVersion} that ${application.upgradeStartedBy} started under way on the cluster; following it`
        : `found ${application.cluster} already asking for ${application.releaseVersion} (ClusterVersion spec.desiredUpdate, set outside Fleetskew); following the upgrade`,
      details: {
        application: application.id,
        release: application.releaseVersion,
        image: application.releaseImage,
        startedBy: application.upgradeStartedBy,
        overrideReason: application.overrideReason,
        settled: true,
      },
    },
  );
  return settled !== null;
}

/**
 * An application a rollout made (createdBy "rollout N") is that rollout's step: its sets are
 * (re)created only while the rollout and the step on its cluster are running, so an abort, pause
 * or skip holds the follower's writes too.
 */
async function ownerLetsPin(a: ApplicationRecord): Promise<boolean> {
  const owner = /^rollout (\d+)$/.exec(a.createdBy);
  return !owner || mayWriteFollowUp({ number: Number(owner[1]) }, a.cluster);
}

/** A failed background attempt is tried again after this long (each failure is in the audit log). */
const RETRY_AFTER_MS = 5 * 60_000;
const due = (a: ApplicationRecord, now: number) => !a.lastError || now - new Date(a.updatedAt).getTime() >= RETRY_AFTER_MS;

/** Runs `work` for each item, a few at a time, so one slow cluster does not hold up the others. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/**
 * Background work, safe to run in several processes (every transition is conditional): finishes
 * interrupted applications, recreates sets someone deleted, settles an upgrade started on the
 * cluster but not recorded here, notices finished upgrades and then unpins the previous bundles of
 * that cluster.
 */
export async function followApplications(now = Date.now()): Promise<void> {
  const report = (what: string, a: ApplicationRecord) => (error: unknown) =>
    console.error(`fleetskew: ${what} on ${a.cluster} failed:`, clusterAnswer(error));
  const active = await listApplications({ states: ACTIVE_STATES });
  await eachLimited(
    active.filter((a) => due(a, now)),
    4,
    async (application) => {
      if (application.state === "applying") {
        if (await ownerLetsPin(application))
          await withClusterClient(application.cluster, (client) => pinSets(application, SYSTEM, client)).catch(
            report("pinning images", application),
          );
      } else if (application.state === "unpinning")
        await unpinApplication(application, SYSTEM, "finishing an unpin").catch(report("unpinning images", application));
      else if (application.state === "preloading")
        await withClusterClient(application.cluster, async (client) => {
          const cv = await readClusterVersion(client);
          if (cv.status === "ok" && (await settleStartedUpgrade(application, cv.value, now))) return;
          const sets = await readPinnedImageSets(client);
          if (sets.status !== "ok") return;
          const present = new Set(sets.items.map((s) => s.metadata.name));
          // Someone deleted a set on the cluster: the images are still wanted.
          if (application.pools.some((p) => !present.has(p.set)) && (await ownerLetsPin(application)))
            await pinSets(application, SYSTEM, client);
        }).catch(report("checking pinned images", application));
      else await followUpgrade(application).catch(report("following the upgrade", application));
    },
  );
}

/** Notices a finished upgrade, then unpins the cluster's previous bundles. */
async function followUpgrade(application: ApplicationRecord): Promise<void> {
  const cv = await withClusterClient(application.cluster, (client) => readClusterVersion(client));
  if (cv.status !== "ok") return;
  if (!releaseCompleted(cv.value.status?.history, application.releaseVersion)) return;
  const upgraded = await updateApplication(
    application.id,
    ["upgrading"],
    { state: "upgraded", upgradedAt: new Date() },
    {
      ...SYSTEM,
      action: "bundle.upgrade.complete",
      targetType: "cluster",
      targetId: application.cluster,
      summary: `${application.cluster} completed the upgrade to ${application.releaseVersion}`,
      details: { application: application.id },
    },
  );
  if (!upgraded) return;
  const previous = (await listApplications({ clusterId: application.clusterId, states: ["upgraded"] })).filter(
    (a) => a.id !== application.id && a.createdAt < application.createdAt,
  );
  for (const old of previous) await unpinApplication(old, SYSTEM, `superseded by the ${application.releaseVersion} bundle`);
}
