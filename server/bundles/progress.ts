import type { Actor } from "../auth/actor";
import { requireOverCluster } from "../auth/clusterAuthority";
import { readReach } from "../domain/grants";
import { clustersInReach } from "../store/reach";
import { formatBytes, totalBytes, type BundleManifest } from "../domain/bundleManifest";
import { nodePinProgress, summarizeProgress } from "../domain/bundleProgress";
import { overridable, upgradeBlockers, upgradeStateOf } from "../domain/bundles";
import { evaluateReadiness } from "../domain/readiness";
import type { ClusterSnapshot } from "../domain/snapshot";
import { shownFailure } from "../clusters/access";
import { UserFacingError } from "../errors";
import { skewLimits } from "../fleet/fleet";
import { findApplication, listApplications, type ApplicationRecord } from "../store/bundles";
import { findClusterState } from "../store/history";
import { bundleOrThrow } from "./bundles";
import type { ApplicationProgress } from "./contract";
import { readLivePools } from "./live";

/** Where an application stands: every node's pre-load, readiness for the release, the upgrade. */
export type { ApplicationProgress };

function progressOf(application: ApplicationRecord, s: ClusterSnapshot, pools: Map<string, string>, manifest: BundleManifest) {
  const setsOnCluster = new Map(s.pinnedImageSets.map((p) => [p.name, p]));
  const bytes = totalBytes(manifest);
  const nodes = s.nodes
    .filter((n) => application.pools.some((p) => p.pool === (pools.get(n.name) ?? n.pool)))
    .map((n) => {
      const pool = pools.get(n.name) ?? n.pool!;
      const set = application.pools.find((p) => p.pool === pool)!.set;
      return nodePinProgress(
        { ...n, pool },
        { name: set, generation: setsOnCluster.get(set)?.generation ?? null },
        bytes,
        s.version?.current,
      );
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

/** An application as a person may reach it: on a cluster they do not read it is missing (404). */
export async function applicationFor(id: string, actor: Actor): Promise<ApplicationRecord> {
  const application = await applicationOrThrow(id);
  const [read] = await clustersInReach([application.cluster], readReach(actor.held));
  if (!read) throw new UserFacingError(404, `no bundle application ${id}`);
  return application;
}

/** An application a person changes (start the upgrade, unpin): a technician over its cluster. Answers the grant. */
export async function applicationToChange(id: string, actor: Actor): Promise<{ application: ApplicationRecord; grant: string }> {
  const application = await applicationOrThrow(id);
  const grant = await requireOverCluster(actor, ["technician"], application.cluster, `no bundle application ${id}`);
  return { application, grant };
}

/** Where an application stands: every node's pre-load, readiness for the release, the upgrade. */

export async function applicationProgress(id: string, actor: Actor | null = null): Promise<ApplicationProgress> {
  const application = actor ? await applicationFor(id, actor) : await applicationOrThrow(id);
  const bundle = await bundleOrThrow(application.bundleDigest);
  let snapshot: ClusterSnapshot;
  let pools: Map<string, string>;
  let source: ApplicationProgress["source"] = "live";
  let observedAt = new Date().toISOString();
  let sourceNote: string | null = null;
  try {
    ({ snapshot, pools } = await readLivePools(application.cluster));
  } catch (error) {
    const stored = await findClusterState(application.clusterId);
    if (!stored?.snapshot) throw error;
    snapshot = stored.snapshot;
    pools = new Map(snapshot.nodes.filter((n) => n.pool).map((n) => [n.name, n.pool!]));
    source = "stored";
    observedAt = stored.lastSeenAt;
    sourceNote = `${application.cluster} cannot be read now (${shownFailure(error, `reading ${application.cluster}`)}); this is its state as of the last sweep.`;
  }
  const { nodes, summary, missingSets } = progressOf(application, snapshot, pools, bundle.manifest);
  const readiness = evaluateReadiness(snapshot, application.releaseVersion, { limits: await skewLimits() });
  const upgrade = upgradeStateOf(snapshot, application.releaseVersion);
  const otherUpgrade =
    application.state === "preloading"
      ? ((await listApplications({ clusterId: application.clusterId, states: ["upgrading"] })).find((a) => a.id !== application.id) ?? null)
      : null;
  const found = upgradeBlockers({ application, summary, readinessChecks: readiness.checks, missingSets, upgrade, otherUpgrade });
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
    upgrade,
    blockers: found.map((b) => b.text),
    overridable: overridable(found),
  };
}
