import { auditActor, type Actor } from "../auth/actor";
import { auditedClusterWrite, clusterAnswer, withClusterClient } from "../clusters/access";
import { CONCURRENT_CHANGE, unpinReason, unpinRefusal } from "../domain/bundles";
import { UserFacingError } from "../errors";
import { deletePinnedImageSet } from "../kube/writers";
import { updateApplication, type ApplicationRecord } from "../store/bundles";
import type { Who } from "./live";
import { applicationToChange } from "./progress";

/**
 * Removes an application's PinnedImageSets. The application moves to `unpinning` first (only from
 * the state it was in), so nothing recreates a set meanwhile and no upgrade starts without them;
 * a delete that fails leaves it there, and the background finishes it.
 */
export async function unpinApplication(application: ApplicationRecord, who: Who, why: string): Promise<ApplicationRecord | null> {
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
  const { application, grant } = await applicationToChange(id, actor);
  const refusal = unpinRefusal(application);
  if (refusal) throw new UserFacingError(409, refusal);
  const why = unpinReason(application);
  const result = await unpinApplication(application, auditActor(actor, grant), why).catch((error) => {
    throw new UserFacingError(502, `${application.cluster} refused: ${clusterAnswer(error)}`);
  });
  if (!result) throw new UserFacingError(409, CONCURRENT_CHANGE);
  return result;
}
