import type { z } from "zod";
import { auditActor, type Actor } from "../auth/actor";
import { clusterAnswer } from "../clusters/access";
import { startClusterUpgrade, UpgradeRefused } from "../clusters/upgrade";
import { CONCURRENT_CHANGE, startRefusal } from "../domain/bundles";
import { UserFacingError } from "../errors";
import { updateApplication, type ApplicationRecord } from "../store/bundles";
import type { StartUpgradeSchema } from "./contract";
import { applicationOrThrow, applicationProgress, applicationToChange } from "./progress";

/**
 * "Start upgrade": when every node has the images and readiness for the release has no failures,
 * ClusterVersion spec.desiredUpdate is set to the bundle's release digest. An admin can start
 * despite failing readiness checks, and only with a written reason; nothing overrides the other
 * blockers. Who started it (and why) is recorded before the cluster is written, so that an
 * interruption between the write and the state change is settled by `followApplications`.
 */
export async function startUpgrade(id: string, input: z.infer<typeof StartUpgradeSchema>, actor: Actor): Promise<ApplicationRecord> {
  const { application, grant } = await applicationToChange(id, actor);
  const refusal = startRefusal(application);
  if (refusal) throw new UserFacingError(409, refusal);
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
  if (!(await updateApplication(id, ["preloading"], intent))) throw new UserFacingError(409, CONCURRENT_CHANGE);
  await startClusterUpgrade(application.cluster, {
    who: auditActor(actor, grant),
    version: application.releaseVersion,
    image: application.releaseImage,
    details: { application: id, overrideReason: intent.overrideReason },
  }).catch(async (error: unknown) => {
    // Only a refusal says the cluster did not take it. A timeout, a lost connection or a 5xx may come
    // after it did: the recorded start stays, so the follower credits the right person.
    if (error instanceof UpgradeRefused) {
      await updateApplication(id, ["preloading"], { upgradeStartedBy: null, upgradeStartedAt: null, overrideReason: null }).catch(
        () => undefined,
      );
      throw new UserFacingError(502, error.message);
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
      ...auditActor(actor, grant),
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
  throw new UserFacingError(409, now.state === "upgrading" ? startRefusal(now)! : CONCURRENT_CHANGE);
}
