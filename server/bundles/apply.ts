import type { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { requireOverCluster } from "../auth/clusterAuthority";
import { auditedClusterWrite, shownFailure, withClusterClient } from "../clusters/access";
import { BUNDLE_LABEL, pinnedImageSetName, pinnedImagesOf, RELEASE_LABEL, totalBytes } from "../domain/bundleManifest";
import { labelsForPool, ROLE_LABEL } from "../domain/bundlePrechecks";
import { CONCURRENT_CHANGE } from "../domain/bundles";
import { noSuchCluster, UserFacingError } from "../errors";
import type { ClusterClient } from "../kube/client";
import { createPinnedImageSet } from "../kube/writers";
import { insertApplication, listApplications, updateApplication, type ApplicationPool, type ApplicationRecord } from "../store/bundles";
import { findClusterSummary } from "../store/clusters";
import { bundleOrThrow } from "./bundles";
import type { ApplyBundleSchema } from "./contract";
import { readPinnedImageSets } from "../kube/readers";
import { poolsOf, readLive, type Who } from "./live";
import { precheckOn } from "./precheck";

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
  // Applying takes a technician over the cluster; one the person cannot read does not exist for them.
  const grant = await requireOverCluster(actor, ["technician"], input.cluster, noSuchCluster(input.cluster).message);
  return applyBundleAs(input, { who: auditActor(actor, grant), username: actor.user.username, warningsAccepted: null });
}

/**
 * Who applies: a person, who confirms each warning by its key, or a rollout, whose approval by a
 * second person stands for the warnings (`warningsAccepted` says so in the audit log).
 */
export type Applier = { who: Who; username: string; warningsAccepted: string | null };

export async function applyBundleAs(
  input: z.infer<typeof ApplyBundleSchema>,
  by: Applier,
): Promise<{ application: ApplicationRecord; created: boolean }> {
  const bundle = await bundleOrThrow(input.digest);
  const cluster = await findClusterSummary(input.cluster);
  if (!cluster) throw noSuchCluster(input.cluster);
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
    const unconfirmed = by.warningsAccepted ? [] : warnings.filter((c) => !confirmed.has(c.key));
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
    const confirmedBy = by.warningsAccepted ? ` ${by.warningsAccepted}` : " confirmed";
    const audit = {
      ...by.who,
      summary: `applied the bundle for ${bundle.releaseVersion} to ${cluster.name} (${pools.length} pools${warnings.length ? `, ${warnings.length} warnings${confirmedBy}` : ""})${existing ? " again" : ""}`,
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
          createdBy: by.username,
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
      if (!restarted) throw new UserFacingError(409, CONCURRENT_CHANGE);
      application = restarted;
    } else {
      const inserted = await insertApplication(
        {
          bundleDigest: bundle.digest,
          clusterId: cluster.id,
          pools,
          confirmedWarnings: warnings.map((w) => w.title),
          createdBy: by.username,
        },
        audit,
      );
      if (!inserted.created) return inserted;
      application = inserted.application;
    }
    return { application: (await pinSets(application, by.who, client)) ?? application, created: true };
  });
}

/** Creates the application's PinnedImageSets (each one idempotently) and moves it to pre-loading. */
export async function pinSets(application: ApplicationRecord, who: Who, client: ClusterClient): Promise<ApplicationRecord | null> {
  const bundle = await bundleOrThrow(application.bundleDigest);
  const images = pinnedImagesOf(bundle.manifest);
  try {
    // Only the sets the cluster does not have are written: an application resumed after a stop
    // (or a set someone deleted) creates what is missing and repeats no create.
    const listed = await readPinnedImageSets(client);
    const ours = application.bundleDigest.slice(0, 12);
    const present = new Set(
      listed.status === "ok" ? listed.items.filter((s) => s.metadata.labels?.[BUNDLE_LABEL] === ours).map((s) => s.metadata.name) : [],
    );
    for (const { pool, set, labels } of application.pools.filter((p) => !present.has(p.set)))
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
