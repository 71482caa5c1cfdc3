import { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { auditedClusterWrite, clusterAnswer, shownFailure, withClusterClient } from "../clusters/access";
import { normalizeSnapshot } from "../collector/normalize";
import {
  BUNDLE_LABEL,
  formatBytes,
  labelsForPool,
  ROLE_LABEL,
  nodePinProgress,
  alwaysPullPod,
  pinnedImageSetName,
  pinnedImagesOf,
  precheckBundle,
  RELEASE_LABEL,
  summarizeProgress,
  totalBytes,
  type BundleManifest,
  type NodeProgress,
  type PodLike,
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
import type { ClusterVersion } from "../kube/schemas";
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
    alwaysPullPods: pods.status === "ok" ? pods.items.flatMap((p) => alwaysPullPod(p as PodLike) ?? []) : [],
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
  /** The keys of the warnings the technician read and accepts (each precheck's `key`). */
  confirmedWarnings: z
    .array(z.string().trim().min(1).max(300), { error: "confirmedWarnings must be a list of precheck keys" })
    .max(200, "confirmedWarnings may list at most 200 keys")
    .default([]),
});

/**
 * Applies a bundle: the prechecks run again (a failure blocks; every warning must be one the
 * technician confirmed by its key, so one that appeared since they read the prechecks is not taken
 * as read), the application is recorded, then its PinnedImageSets are created. Applying twice
 * changes nothing; applying a bundle that was unpinned starts it over; an interrupted application
 * is finished by `followApplications`.
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
    const confirmed = new Set(input.confirmedWarnings);
    const unconfirmed = warnings.filter((c) => !confirmed.has(c.key));
    if (unconfirmed.length) {
      const titles = unconfirmed.map((c) => c.title).join("; ");
      throw new UserFacingError(
        409,
        input.confirmedWarnings.length
          ? `Not applied: the cluster changed since you checked it. Read and confirm ${unconfirmed.length === 1 ? "this new warning" : `these ${unconfirmed.length} new warnings`}: ${titles}.`
          : `Confirm the warnings to apply: ${titles}.`,
        {},
        { checks: result.checks, needsConfirmation: true, unconfirmed: unconfirmed.map((c) => c.key) },
      );
    }
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
    const message = shownFailure(error, `applying ${application.id}`);
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
  /**
   * Every blocker is a failing readiness check, which an admin may override with a written reason.
   * Nodes without the images, a cluster already updating, another bundle's upgrade still running
   * and missing sets cannot be overridden.
   */
  overridable: boolean;
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
    sourceNote = `${application.cluster} cannot be read now (${shownFailure(error, `reading ${application.cluster}`)}); this is its state as of the last sweep.`;
  }
  const { nodes, summary, missingSets } = progressOf(application, snapshot, pools, bundle.manifest);
  const readiness = evaluateReadiness(snapshot, application.releaseVersion, { limits: await skewLimits() });
  // Only a failing readiness check may be overridden (by an admin, with a reason); the rest must be resolved.
  const found: { text: string; overridable: boolean }[] = [];
  const block = (text: string, overridable = false) => found.push({ text, overridable });
  if (application.state === "applying") block("The PinnedImageSets are still being created.");
  if (application.state === "preloading") {
    if (!summary.allDone) block(`${summary.total - summary.done} of ${summary.total} nodes do not have the images yet.`);
    for (const check of readiness.checks.filter((c) => c.status === "fail"))
      block(`Readiness for ${application.releaseVersion}: ${check.title}: ${check.detail}`, true);
    if (missingSets.length) block(`PinnedImageSet ${missingSets.join(", ")} is missing on the cluster; Fleetskew creates it again.`);
    const upgrade = upgradeStateOf(snapshot, application.releaseVersion);
    if (upgrade.progressing || (upgrade.desired && upgrade.current && upgrade.desired !== upgrade.current))
      block(
        `The cluster is already updating${upgrade.desired && upgrade.desired !== upgrade.current ? ` to ${upgrade.desired}` : ""}; starting another update now would change its target midway.`,
      );
    const other = (await listApplications({ clusterId: application.clusterId, states: ["upgrading"] })).find(
      (a) => a.id !== application.id,
    );
    if (other)
      block(
        `The upgrade to ${other.releaseVersion} (another bundle) was started by ${other.upgradeStartedBy ?? "someone"} and has not completed.`,
      );
  }
  const blockers = found.map((b) => b.text);
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
    overridable: found.length > 0 && found.every((b) => b.overridable),
  };
}

export const StartUpgradeSchema = z.object({
  /** An admin's written reason for starting despite failing readiness checks. */
  overrideReason: z.string().trim().max(2000).optional(),
});

/**
 * "Start upgrade": when every node has the images and readiness for the release has no failures,
 * ClusterVersion spec.desiredUpdate is set to the bundle's release digest. An admin can start
 * despite failing readiness checks, and only with a written reason; nothing overrides the other
 * blockers. Who started it (and why) is recorded before the cluster is written, so that an
 * interruption between the write and the state change is settled by `followApplications`.
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
  const refuse = (next: string) =>
    new UserFacingError(
      409,
      `Not started: ${progress.blockers.join(" ")} ${next}`.trim(),
      {},
      {
        blockers: progress.blockers,
        overridable: progress.overridable,
      },
    );
  if (progress.blockers.length) {
    if (!progress.overridable)
      throw refuse(
        actor.user.role === "admin" && reason
          ? "Only failing readiness checks can be overridden; resolve the rest first."
          : "Resolve these first; this page says when the upgrade can start.",
      );
    if (actor.user.role !== "admin") throw refuse("An admin can start it anyway with a written reason.");
    if (reason.length < 10) throw refuse("To start anyway, write why (at least 10 characters).");
  }
  const overridden = progress.blockers.length > 0;
  const startedAt = new Date();
  const intent = { upgradeStartedBy: actor.user.username, upgradeStartedAt: startedAt, overrideReason: overridden ? reason : null };
  // Recorded first: if Fleetskew stops after the cluster took the update, the follower finds who started it and why.
  if (!(await updateApplication(id, ["preloading"], intent)))
    throw new UserFacingError(409, "Someone else changed this application at the same moment; reload the page");
  await withClusterClient(application.cluster, (client) =>
    auditedClusterWrite(
      auditActor(actor),
      application.cluster,
      {
        object: "ClusterVersion version",
        change: `set spec.desiredUpdate to ${application.releaseVersion}`,
        details: { image: application.releaseImage, application: id, overrideReason: intent.overrideReason },
      },
      () => setDesiredUpdate(client, { version: application.releaseVersion, image: application.releaseImage }),
      (r) => (r.result === "patched" ? "desiredUpdate set" : "desiredUpdate already set"),
    ),
  ).catch(async (error) => {
    // Only an answer from the API server (4xx: conflict, forbidden, invalid…) says the cluster did not take it. A timeout,
    // a lost connection or a 5xx may come after it did: the recorded start stays, so the follower credits the right person.
    if (definitelyRefused(error)) {
      await updateApplication(id, ["preloading"], { upgradeStartedBy: null, upgradeStartedAt: null, overrideReason: null }).catch(
        () => undefined,
      );
      throw new UserFacingError(502, `${application.cluster} refused the upgrade: ${clusterAnswer(error)}`);
    }
    throw new UserFacingError(
      503,
      `The start of the upgrade to ${application.releaseVersion} is not confirmed: ${clusterAnswer(error)}. ` +
        `${application.cluster} may have taken it; this page follows the cluster and shows the upgrade once it is under way. ` +
        "If it has not started in a few minutes, press Start upgrade again.",
      {},
      { startConfirmed: false },
    );
  });
  const updated = await updateApplication(
    id,
    ["preloading"],
    { state: "upgrading", ...intent },
    {
      ...auditActor(actor),
      action: "bundle.upgrade.start",
      targetType: "cluster",
      targetId: application.cluster,
      summary: overridden
        ? `started the upgrade of ${application.cluster} to ${application.releaseVersion} despite ${progress.blockers.length} failing readiness check(s): ${reason}`
        : `started the upgrade of ${application.cluster} to ${application.releaseVersion}`,
      details: {
        application: id,
        release: application.releaseVersion,
        overrideReason: intent.overrideReason,
        blockers: progress.blockers,
      },
    },
  );
  if (updated) return updated;
  // The follower may have settled this start meanwhile (it found the update on the cluster); anything else was someone else.
  const now = await applicationOrThrow(id);
  if (now.state === "upgrading" && now.upgradeStartedBy === actor.user.username) return now;
  throw new UserFacingError(
    409,
    now.state === "upgrading"
      ? `The upgrade to ${now.releaseVersion} was already started by ${now.upgradeStartedBy ?? "someone"}`
      : "Someone else changed this application at the same moment; reload the page",
  );
}

/** The API server answered the write with a refusal (4xx), so it was not applied; anything else leaves it unknown. */
const definitelyRefused = (error: unknown) =>
  error instanceof KubeError && error.status !== undefined && error.status >= 400 && error.status < 500;

/** How long a recorded start may stay without its state change before the follower settles it from the cluster. */
const START_INTERRUPTED_AFTER_MS = 2 * 60_000;

/**
 * A pre-loading application whose cluster already asks for the bundle's release image
 * (ClusterVersion spec.desiredUpdate): the start was interrupted between the cluster write and the
 * state change, or someone set it outside Fleetskew. It moves on to upgrading, so the upgrade is
 * followed and no second start is offered. True when it did.
 */
async function settleStartedUpgrade(application: ApplicationRecord, cv: ClusterVersion, now: number): Promise<boolean> {
  if (cv.spec?.desiredUpdate?.image !== application.releaseImage) return false;
  const intentAt = application.upgradeStartedAt ? Date.parse(application.upgradeStartedAt) : null;
  // A start recorded moments ago may still be on its way to its own state change.
  if (intentAt !== null && now - intentAt < START_INTERRUPTED_AFTER_MS) return false;
  const completed = (cv.status?.history ?? []).some((h) => h.version === application.releaseVersion && h.state === "Completed");
  // Nobody started it from here and the cluster already runs that release: a desiredUpdate left from an earlier upgrade.
  if (intentAt === null && completed) return false;
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
 * interrupted applications, recreates sets someone deleted, settles an upgrade started on the
 * cluster but not recorded here, notices finished upgrades and then unpins the previous bundles of
 * that cluster.
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
          const cv = await readClusterVersion(client);
          if (cv.status === "ok" && (await settleStartedUpgrade(application, cv.value, now))) return;
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
