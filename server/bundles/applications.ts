import { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { auditedClusterWrite, clusterAnswer, withClusterClient } from "../clusters/access";
import { normalizeSnapshot } from "../collector/normalize";
import {
  BUNDLE_LABEL,
  formatBytes,
  labelsForPool,
  ROLE_LABEL,
  nodePinProgress,
  pinnedImageSetName,
  pinnedImagesOf,
  precheckBundle,
  RELEASE_LABEL,
  summarizeProgress,
  totalBytes,
  type BundleManifest,
  type NodeProgress,
  type Precheck,
  type PrecheckInput,
  type ProgressSummary,
} from "../domain/bundles";
import { selectorMatches, type LabelSelector } from "../domain/labelSelector";
import { evaluateReadiness, type Readiness } from "../domain/readiness";
import { conditionOf, type ClusterSnapshot } from "../domain/snapshot";
import { UserFacingError } from "../errors";
import { skewLimits } from "../fleet/fleet";
import { KubeError, type ClusterClient } from "../kube/client";
import { readClusterObjects, readClusterVersion, readPinnedImageSets, readPods, type ClusterObjects } from "../kube/readers";
import { createPinnedImageSet, deletePinnedImageSet, setDesiredUpdate } from "../kube/writers";
import type { AuditInput } from "../store/audit";
import {
  findApplication,
  insertApplication,
  listApplications,
  updateApplication,
  type ApplicationPool,
  type ApplicationRecord,
  type ApplicationState,
} from "../store/bundles";
import { findClusterSummary } from "../store/clusters";
import { findClusterState } from "../store/history";
import { bundleOrThrow } from "./bundles";

/**
 * Applying a vetted bundle to a cluster: prechecks, one PinnedImageSet per pool, following every
 * node's pre-load, starting the upgrade, and unpinning afterwards. Each step reads the cluster
 * live; every write to it is audited with its result.
 */
type Who = Pick<AuditInput, "actor" | "role" | "ip">;
/** Work Fleetskew does by itself (resuming an application, following an upgrade). */
const SYSTEM: Who = { actor: null, role: null, ip: null };

type Live = { client: ClusterClient; objects: ClusterObjects; snapshot: ClusterSnapshot };

async function readLive(client: ClusterClient, cluster: string): Promise<Live> {
  const objects = await readClusterObjects(client);
  const failures = Object.values(objects).filter((r) => r.status === "error");
  if (failures.length === Object.keys(objects).length) {
    const first = failures[0]!;
    throw new UserFacingError(503, `cannot read ${cluster} now: ${first.status === "error" ? first.error.message : ""}`);
  }
  if (objects.pinnedImageSets.status === "not-available")
    throw new UserFacingError(
      422,
      `${cluster} does not serve PinnedImageSet (machineconfiguration.openshift.io/v1, OpenShift 4.19 and later), so Fleetskew cannot pre-load images there`,
    );
  return { client, objects, snapshot: normalizeSnapshot(objects) };
}

type PoolSpec = { name: string; machineConfigSelector?: LabelSelector; nodeSelector?: LabelSelector };

function poolsOf(live: Live): PoolSpec[] {
  if (live.objects.pools.status !== "ok") return [];
  return live.objects.pools.items.map((p) => {
    const spec = (p.spec ?? {}) as { machineConfigSelector?: LabelSelector; nodeSelector?: LabelSelector };
    return { name: p.metadata.name, machineConfigSelector: spec.machineConfigSelector, nodeSelector: spec.nodeSelector };
  });
}

/**
 * Each node's pool: as its MachineConfigNode says, else the pool whose node selector matches it
 * (a custom pool before worker, as the MCO assigns a node to the custom pool).
 */
function nodePools(live: Live): Map<string, string> {
  const pools = poolsOf(live).sort((a, b) => Number(a.name === "worker") - Number(b.name === "worker"));
  const labels = new Map(
    live.objects.nodes.status === "ok" ? live.objects.nodes.items.map((n) => [n.metadata.name, n.metadata.labels ?? {}] as const) : [],
  );
  const result = new Map<string, string>();
  for (const n of live.snapshot.nodes) {
    const pool = n.pool ?? pools.find((p) => p.nodeSelector && selectorMatches(p.nodeSelector, labels.get(n.name) ?? {}))?.name;
    if (pool) result.set(n.name, pool);
  }
  return result;
}

export type PrecheckResult = {
  cluster: string;
  bundle: { digest: string; release: string; images: number; size: string };
  checks: Precheck[];
  canApply: boolean;
  needsConfirmation: boolean;
};

async function precheckOn(live: Live, cluster: string, digest: string, manifest: BundleManifest): Promise<PrecheckResult> {
  const pods = await readPods(live.client);
  const pools = nodePools(live);
  const unavailable: PrecheckInput["unavailable"] = [];
  if (pods.status !== "ok") unavailable.push({ part: "pods", reason: pods.status === "error" ? pods.error.message : pods.reason });
  if (live.objects.pinnedImageSets.status === "error")
    unavailable.push({ part: "pinned image sets", reason: live.objects.pinnedImageSets.error.message });
  if (live.objects.nodes.status !== "ok")
    unavailable.push({
      part: "nodes",
      reason: live.objects.nodes.status === "error" ? live.objects.nodes.error.message : live.objects.nodes.reason,
    });
  const snapshotPools = new Map(live.snapshot.pools.map((p) => [p.name, p]));
  const checks = precheckBundle({
    manifest,
    digest,
    pools: poolsOf(live).map((p) => ({
      name: p.name,
      machineConfigSelector: p.machineConfigSelector,
      degraded: snapshotPools.get(p.name)?.degraded ?? false,
      updating: snapshotPools.get(p.name)?.updating ?? false,
      degradedMessage: snapshotPools.get(p.name)?.degradedMessage ?? null,
    })),
    nodes: live.snapshot.nodes.map((n) => ({ ...n, pool: pools.get(n.name) ?? null })),
    alwaysPullPods:
      pods.status === "ok"
        ? pods.items
            .filter((p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed")
            .map((p) => ({
              namespace: p.metadata.namespace ?? "",
              name: p.metadata.name,
              node: p.spec?.nodeName ?? null,
              containers: [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])]
                .filter((c) => c.imagePullPolicy === "Always")
                .map((c) => c.name),
            }))
            .filter((p) => p.containers.length > 0)
        : [],
    pinnedImageSets:
      live.objects.pinnedImageSets.status === "ok"
        ? live.objects.pinnedImageSets.items.map((s) => ({
            name: s.metadata.name,
            labels: s.metadata.labels ?? {},
            images: s.spec.pinnedImages.map((i) => i.name),
          }))
        : [],
    unavailable,
  });
  return {
    cluster,
    bundle: {
      digest: `sha256:${digest}`,
      release: manifest.release.version,
      images: manifest.images.length,
      size: formatBytes(totalBytes(manifest)),
    },
    checks,
    canApply: !checks.some((c) => c.status === "fail"),
    needsConfirmation: checks.some((c) => c.status === "warn"),
  };
}

async function liveClusterName(name: string): Promise<string> {
  const cluster = await findClusterSummary(name);
  if (!cluster) throw new UserFacingError(404, `no cluster named ${name}`);
  return cluster.name;
}

export async function precheck(digestText: string, clusterName: string): Promise<PrecheckResult> {
  const bundle = await bundleOrThrow(digestText);
  const cluster = await liveClusterName(clusterName);
  return withClusterClient(cluster, async (client) => precheckOn(await readLive(client, cluster), cluster, bundle.digest, bundle.manifest));
}

export const ApplyBundleSchema = z.object({
  digest: z.string().trim().min(1, "name the bundle by its digest"),
  cluster: z.string().trim().min(1, "choose a cluster"),
  /** The technician read the warnings and wants to go ahead. */
  confirmWarnings: z.boolean().default(false),
});

/**
 * Applies a bundle: the prechecks run again (a failure blocks, a warning needs confirmation), the
 * application is recorded, then its PinnedImageSets are created. Applying twice changes nothing;
 * applying a bundle that was unpinned starts it over; an interrupted application is finished by
 * `followApplications`.
 */
export async function applyBundle(
  input: z.infer<typeof ApplyBundleSchema>,
  actor: Actor,
): Promise<{ application: ApplicationRecord; created: boolean }> {
  const bundle = await bundleOrThrow(input.digest);
  const cluster = await findClusterSummary(input.cluster);
  if (!cluster) throw new UserFacingError(404, `no cluster named ${input.cluster}`);
  const existing = (await listApplications({ clusterId: cluster.id })).find((a) => a.bundleDigest === bundle.digest);
  if (existing && existing.state !== "unpinned") return { application: existing, created: false };
  return withClusterClient(cluster.name, async (client) => {
    const live = await readLive(client, cluster.name);
    const result = await precheckOn(live, cluster.name, bundle.digest, bundle.manifest);
    const failing = result.checks.filter((c) => c.status === "fail");
    if (failing.length)
      throw new UserFacingError(
        409,
        `Not applied: ${failing.map((c) => c.title).join("; ")}. Fix these first, then check again.`,
        {},
        { checks: result.checks },
      );
    const warnings = result.checks.filter((c) => c.status === "warn");
    if (warnings.length && !input.confirmWarnings)
      throw new UserFacingError(
        409,
        `Confirm the warnings to apply: ${warnings.map((c) => c.title).join("; ")}.`,
        {},
        { checks: result.checks, needsConfirmation: true },
      );
    const specs = poolsOf(live);
    const pools: ApplicationPool[] = specs.map((p) => ({
      pool: p.name,
      set: pinnedImageSetName(bundle.manifest, bundle.digest, p.name),
      // The precheck refused pools no labels can reach.
      labels: labelsForPool(p, specs)!,
    }));
    const audit = {
      ...auditActor(actor),
      summary: `applied the bundle for ${bundle.releaseVersion} to ${cluster.name} (${pools.length} pools${warnings.length ? `, ${warnings.length} warnings confirmed` : ""})${existing ? " again" : ""}`,
    };
    let application: ApplicationRecord;
    if (existing) {
      const restarted = await updateApplication(
        existing.id,
        ["unpinned"],
        {
          state: "applying",
          pools,
          confirmedWarnings: warnings.map((w) => w.title),
          createdBy: actor.user.username,
          createdAt: new Date(),
          lastError: null,
          upgradeStartedBy: null,
          upgradeStartedAt: null,
          overrideReason: null,
          upgradedAt: null,
          unpinnedAt: null,
        },
        {
          ...audit,
          action: "bundle.apply",
          targetType: "cluster",
          targetId: cluster.name,
          details: { application: existing.id, again: true },
        },
      );
      if (!restarted) throw new UserFacingError(409, "Someone else changed this application at the same moment; reload the page");
      application = restarted;
    } else {
      const inserted = await insertApplication(
        {
          bundleDigest: bundle.digest,
          clusterId: cluster.id,
          pools,
          confirmedWarnings: warnings.map((w) => w.title),
          createdBy: actor.user.username,
        },
        audit,
      );
      if (!inserted.created) return inserted;
      application = inserted.application;
    }
    return { application: (await pinSets(application, auditActor(actor), client)) ?? application, created: true };
  });
}

/** Creates the application's PinnedImageSets (each one idempotently) and moves it to pre-loading. */
async function pinSets(application: ApplicationRecord, who: Who, client: ClusterClient): Promise<ApplicationRecord | null> {
  const bundle = await bundleOrThrow(application.bundleDigest);
  const images = pinnedImagesOf(bundle.manifest);
  try {
    for (const { pool, set, labels } of application.pools)
      await auditedClusterWrite(
        who,
        application.cluster,
        {
          object: `PinnedImageSet ${set}`,
          change: `pin the ${application.releaseVersion} bundle's ${images.length} images for pool ${pool}`,
          details: { application: application.id },
        },
        () =>
          createPinnedImageSet(client, {
            name: set,
            poolLabels: labels ?? { [ROLE_LABEL]: pool },
            images,
            labels: { [BUNDLE_LABEL]: application.bundleDigest.slice(0, 12), [RELEASE_LABEL]: application.releaseVersion },
            annotations: { "fleetskew.io/image-size-bytes": String(totalBytes(bundle.manifest)) },
          }),
        (r) => (r === "created" ? "created" : "already there, unchanged"),
      );
    return await updateApplication(application.id, ["applying", "preloading"], { state: "preloading", lastError: null });
  } catch (error) {
    const message = error instanceof UserFacingError || error instanceof KubeError ? clusterAnswer(error) : (error as Error).message;
    return updateApplication(application.id, ["applying", "preloading"], { lastError: message });
  }
}

// ---------------------------------------------------------------------------------------------

export type UpgradeState = {
  /** The release the cluster runs, and whether the bundle's release is in place. */
  current: string | null;
  desired: string | null;
  completed: boolean;
  progressing: string | null;
  /** ReleaseAccepted=False: the CVO refused the release (e.g. Upgradeable=False for a minor update). */
  refused: string | null;
};

export type ApplicationProgress = {
  application: ApplicationRecord;
  manifest: { images: number; size: string; release: string; releaseImage: string };
  /** "live": read from the cluster now; "stored": the collector's last snapshot, the cluster being unreachable. */
  source: "live" | "stored";
  observedAt: string;
  sourceNote: string | null;
  nodes: NodeProgress[];
  summary: ProgressSummary;
  missingSets: string[];
  readiness: Readiness | null;
  upgrade: UpgradeState;
  /** Why "Start upgrade" is not available yet, in words; empty when it is. */
  blockers: string[];
};

function upgradeStateOf(s: ClusterSnapshot, release: string): UpgradeState {
  const history = s.version?.history ?? [];
  const progressing = conditionOf(s.version?.conditions, "Progressing");
  const accepted = conditionOf(s.version?.conditions, "ReleaseAccepted");
  return {
    current: s.version?.current ?? null,
    desired: s.version?.desired ?? null,
    completed: history.some((h) => h.version === release && h.state === "Completed"),
    progressing: progressing?.status === "True" ? (progressing.message ?? "in progress") : null,
    refused:
      accepted?.status === "False" && s.version?.desired !== s.version?.current
        ? (accepted.message ?? "the release was not accepted")
        : null,
  };
}

function progressOf(application: ApplicationRecord, s: ClusterSnapshot, pools: Map<string, string>, manifest: BundleManifest) {
  const setsOnCluster = new Map(s.pinnedImageSets.map((p) => [p.name, p]));
  const bytes = totalBytes(manifest);
  const nodes = s.nodes
    .filter((n) => application.pools.some((p) => p.pool === (pools.get(n.name) ?? n.pool)))
    .map((n) => {
      const pool = pools.get(n.name) ?? n.pool!;
      const set = application.pools.find((p) => p.pool === pool)!.set;
      return nodePinProgress({ ...n, pool }, { name: set, generation: setsOnCluster.get(set)?.generation ?? null }, bytes);
    })
    .sort((a, b) => a.pool.localeCompare(b.pool) || a.node.localeCompare(b.node));
  const missingSets =
    application.state === "preloading" ? application.pools.filter((p) => !setsOnCluster.has(p.set)).map((p) => p.set) : [];
  return { nodes, summary: summarizeProgress(nodes), missingSets };
}

export async function applicationOrThrow(id: string): Promise<ApplicationRecord> {
  const application = await findApplication(id);
  if (!application) throw new UserFacingError(404, `no bundle application ${id}`);
  return application;
}

/** Where an application stands: every node's pre-load, readiness for the release, the upgrade. */
export async function applicationProgress(id: string): Promise<ApplicationProgress> {
  const application = await applicationOrThrow(id);
  const bundle = await bundleOrThrow(application.bundleDigest);
  let snapshot: ClusterSnapshot;
  let pools: Map<string, string>;
  let source: ApplicationProgress["source"] = "live";
  let observedAt = new Date().toISOString();
  let sourceNote: string | null = null;
  try {
    const live = await withClusterClient(application.cluster, (client) => readLive(client, application.cluster));
    snapshot = live.snapshot;
    pools = nodePools(live);
  } catch (error) {
    const stored = await findClusterState(application.clusterId);
    if (!stored) throw error;
    snapshot = stored.snapshot as ClusterSnapshot;
    pools = new Map(snapshot.nodes.filter((n) => n.pool).map((n) => [n.name, n.pool!]));
    source = "stored";
    observedAt = stored.lastSeenAt;
    sourceNote = `${application.cluster} cannot be read now (${(error as Error).message}); this is its state as of the last sweep.`;
  }
  const { nodes, summary, missingSets } = progressOf(application, snapshot, pools, bundle.manifest);
  const readiness = evaluateReadiness(snapshot, application.releaseVersion, { limits: await skewLimits() });
  const blockers: string[] = [];
  if (application.state === "applying") blockers.push("The PinnedImageSets are still being created.");
  if (application.state === "preloading") {
    if (!summary.allDone) blockers.push(`${summary.total - summary.done} of ${summary.total} nodes do not have the images yet.`);
    for (const check of readiness.checks.filter((c) => c.status === "fail"))
      blockers.push(`Readiness for ${application.releaseVersion}: ${check.title}: ${check.detail}`);
    if (missingSets.length)
      blockers.push(`PinnedImageSet ${missingSets.join(", ")} is missing on the cluster; Fleetskew creates it again.`);
    const upgrade = upgradeStateOf(snapshot, application.releaseVersion);
    if (upgrade.progressing || (upgrade.desired && upgrade.current && upgrade.desired !== upgrade.current))
      blockers.push(
        `The cluster is already updating${upgrade.desired && upgrade.desired !== upgrade.current ? ` to ${upgrade.desired}` : ""}; starting another update now would change its target midway.`,
      );
    const other = (await listApplications({ clusterId: application.clusterId, states: ["upgrading"] })).find(
      (a) => a.id !== application.id,
    );
    if (other)
      blockers.push(
        `The upgrade to ${other.releaseVersion} (another bundle) was started by ${other.upgradeStartedBy ?? "someone"} and has not completed.`,
      );
  }
  return {
    application,
    manifest: {
      images: bundle.manifest.images.length,
      size: formatBytes(totalBytes(bundle.manifest)),
      release: bundle.releaseVersion,
      releaseImage: bundle.releaseImage,
    },
    source,
    observedAt,
    sourceNote,
    nodes,
    summary,
    missingSets,
    readiness,
    upgrade: upgradeStateOf(snapshot, application.releaseVersion),
    blockers,
  };
}

export const StartUpgradeSchema = z.object({
  /** An admin's written reason for starting despite the blockers. */
  overrideReason: z.string().trim().max(2000).optional(),
});

/**
 * "Start upgrade": when every node has the images and readiness for the release has no failures,
 * ClusterVersion spec.desiredUpdate is set to the bundle's release digest. Only an admin can start
 * despite blockers, and only with a written reason.
 */
export async function startUpgrade(id: string, input: z.infer<typeof StartUpgradeSchema>, actor: Actor): Promise<ApplicationRecord> {
  const application = await applicationOrThrow(id);
  if (application.state === "upgrading" || application.state === "upgraded")
    throw new UserFacingError(
      409,
      `The upgrade to ${application.releaseVersion} was already started by ${application.upgradeStartedBy ?? "someone"}`,
    );
  if (application.state !== "preloading")
    throw new UserFacingError(409, `This application is ${application.state}; there is nothing to start`);
  const progress = await applicationProgress(id);
  if (progress.source !== "live") throw new UserFacingError(503, progress.sourceNote ?? `cannot read ${application.cluster} now`);
  const reason = input.overrideReason?.trim() ?? "";
  if (progress.blockers.length) {
    if (actor.user.role !== "admin")
      throw new UserFacingError(
        409,
        `Not started: ${progress.blockers.join(" ")} An admin can start it anyway with a written reason.`,
        {},
        { blockers: progress.blockers },
      );
    if (reason.length < 10)
      throw new UserFacingError(
        409,
        `Not started: ${progress.blockers.join(" ")} To start anyway, write why (at least 10 characters).`,
        {},
        { blockers: progress.blockers },
      );
  }
  await withClusterClient(application.cluster, (client) =>
    auditedClusterWrite(
      auditActor(actor),
      application.cluster,
      {
        object: "ClusterVersion version",
        change: `set spec.desiredUpdate to ${application.releaseVersion}`,
        details: { image: application.releaseImage, application: id },
      },
      () => setDesiredUpdate(client, { version: application.releaseVersion, image: application.releaseImage }),
      (r) => (r.result === "patched" ? "desiredUpdate set" : "desiredUpdate already set"),
    ),
  ).catch((error) => {
    throw new UserFacingError(502, `${application.cluster} refused the upgrade: ${clusterAnswer(error)}`);
  });
  const overridden = progress.blockers.length > 0;
  const updated = await updateApplication(
    id,
    ["preloading"],
    { state: "upgrading", upgradeStartedBy: actor.user.username, upgradeStartedAt: new Date(), overrideReason: overridden ? reason : null },
    {
      ...auditActor(actor),
      action: "bundle.upgrade.start",
      targetType: "cluster",
      targetId: application.cluster,
      summary: overridden
        ? `started the upgrade of ${application.cluster} to ${application.releaseVersion} despite ${progress.blockers.length} blocker(s): ${reason}`
        : `started the upgrade of ${application.cluster} to ${application.releaseVersion}`,
      details: {
        application: id,
        release: application.releaseVersion,
        overrideReason: overridden ? reason : null,
        blockers: progress.blockers,
      },
    },
  );
  if (!updated) throw new UserFacingError(409, "Someone else changed this application at the same moment; reload the page");
  return updated;
}

/**
 * Removes an application's PinnedImageSets. The application moves to `unpinning` first (only from
 * the state it was in), so nothing recreates a set meanwhile and no upgrade starts without them;
 * a delete that fails leaves it there, and the background finishes it.
 */
async function unpinApplication(application: ApplicationRecord, who: Who, why: string): Promise<ApplicationRecord | null> {
  const unpinning =
    application.state === "unpinning"
      ? application
      : await updateApplication(application.id, [application.state], { state: "unpinning", lastError: null });
  if (!unpinning) return null;
  try {
    await withClusterClient(application.cluster, async (client) => {
      for (const { set } of application.pools)
        await auditedClusterWrite(
          who,
          application.cluster,
          {
            object: `PinnedImageSet ${set}`,
            change: `unpin the ${application.releaseVersion} bundle's images (${why})`,
            details: { application: application.id },
          },
          () => deletePinnedImageSet(client, set),
          (r) => (r === "deleted" ? "deleted" : "already gone"),
        );
    });
  } catch (error) {
    await updateApplication(application.id, ["unpinning"], { lastError: clusterAnswer(error) });
    throw error;
  }
  return updateApplication(
    application.id,
    ["unpinning"],
    { state: "unpinned", unpinnedAt: new Date(), lastError: null },
    {
      ...who,
      action: "bundle.unpin",
      targetType: "cluster",
      targetId: application.cluster,
      summary: `unpinned the ${application.releaseVersion} bundle on ${application.cluster} (${why})`,
      details: { application: application.id },
    },
  );
}

/** The one-click unpin: after the upgrade, or to give up a pre-load (also one still being set up). */
export async function unpin(id: string, actor: Actor): Promise<ApplicationRecord> {
  const application = await applicationOrThrow(id);
  if (!(["upgraded", "preloading", "applying", "unpinning"] as ApplicationState[]).includes(application.state))
    throw new UserFacingError(
      409,
      application.state === "unpinned"
        ? "Already unpinned"
        : `Cannot unpin while the cluster is ${application.state} to ${application.releaseVersion}`,
    );
  const why = application.upgradedAt ? "the upgrade is done" : "pre-load given up";
  const result = await unpinApplication(application, auditActor(actor), why).catch((error) => {
    throw new UserFacingError(502, `${application.cluster} refused: ${clusterAnswer(error)}`);
  });
  if (!result) throw new UserFacingError(409, "Someone else changed this application at the same moment; reload the page");
  return result;
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
 * interrupted applications, recreates sets someone deleted, notices finished upgrades and then
 * unpins the previous bundles of that cluster.
 */
export async function followApplications(now = Date.now()): Promise<void> {
  const report = (what: string, a: ApplicationRecord) => (error: unknown) =>
    console.error(`fleetskew: ${what} on ${a.cluster} failed:`, clusterAnswer(error));
  const active = await listApplications({ states: ["applying", "preloading", "upgrading", "unpinning"] });
  await eachLimited(
    active.filter((a) => due(a, now)),
    4,
    async (application) => {
      if (application.state === "applying")
        await withClusterClient(application.cluster, (client) => pinSets(application, SYSTEM, client)).catch(
          report("pinning images", application),
        );
      else if (application.state === "unpinning")
        await unpinApplication(application, SYSTEM, "finishing an unpin").catch(report("unpinning images", application));
      else if (application.state === "preloading")
        await withClusterClient(application.cluster, async (client) => {
          const sets = await readPinnedImageSets(client);
          if (sets.status !== "ok") return;
          const present = new Set(sets.items.map((s) => s.metadata.name));
          // Someone deleted a set on the cluster: the images are still wanted.
          if (application.pools.some((p) => !present.has(p.set))) await pinSets(application, SYSTEM, client);
        }).catch(report("checking pinned images", application));
      else await followUpgrade(application).catch(report("following the upgrade", application));
    },
  );
}

/** Notices a finished upgrade, then unpins the cluster's previous bundles. */
async function followUpgrade(application: ApplicationRecord): Promise<void> {
  const cv = await withClusterClient(application.cluster, (client) => readClusterVersion(client));
  if (cv.status !== "ok") return;
  const done = (cv.value.status?.history ?? []).some((h) => h.version === application.releaseVersion && h.state === "Completed");
  if (!done) return;
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
