/**
 * What people decide about a running rollout beyond its status: releasing the next wave (when the
 * plan says an approver releases each), skipping or retrying clusters, and including a cluster its
 * checks excluded. Each is role-checked by its route, conditional on the state it changes, and audited.
 */
import { auditActor, type Actor } from "../auth/actor";
import { waveAwaitingRelease } from "../domain/rollouts/release";
import { UserFacingError } from "../errors";
import { rolloutCounts } from "../store/rolloutCounts";
import { decideRolloutClusters, releaseWave } from "../store/rolloutDecisions";
import { rolloutWaves, type RolloutClusterState, type RolloutStatus } from "../store/rolloutRecords";
import type { ClusterDecision, RolloutView } from "./contract";
import { describeWrite } from "./describe";
import { found, requireOverEvery, rolloutView } from "./manage";
import { scopeText } from "../auth/clusterAuthority";
import { reachOf, readReach } from "../domain/grants";
import { clustersInReach } from "../store/reach";
import { clustersOfRolloutInReach } from "../store/rolloutScope";

/** Releases the wave the rollout waits on; `wave` names it, so two approvers cannot release two. */
export async function releaseRolloutWave(id: string, wave: number, comment: string, actor: Actor): Promise<RolloutView> {
  const r = await found(id, actor);
  const grant = await requireOverEvery(r, actor, ["approver"]);
  if (r.status !== "running" && r.status !== "paused")
    throw new UserFacingError(409, `Rollout ${r.number} is ${r.status}; only a running or paused rollout has waves to release`);
  const [waves, counts] = await Promise.all([rolloutWaves(r.id), rolloutCounts(r.id)]);
  const waiting = waveAwaitingRelease(r.request, waves, counts);
  if (waiting === null) throw new UserFacingError(409, `No wave of rollout ${r.number} is waiting to be released`);
  if (waiting !== wave)
    throw new UserFacingError(
      409,
      `Rollout ${r.number} waits for ${waves[waiting]!.name}, not wave ${wave}; reload and try again`,
      {},
      { field: "wave" },
    );
  const released = await releaseWave(r.id, wave, actor.user.username, {
    ...auditActor(actor),
    action: "rollout.release-wave",
    targetType: "rollout",
    targetId: String(r.number),
    summary: `released ${waves[wave]!.name} of rollout ${r.number} (${describeWrite(r.request)})${comment ? `: ${comment}` : ""}`,
    details: { grant },
  });
  if (!released) throw new UserFacingError(409, `${waves[wave]!.name} of rollout ${r.number} was released already`);
  return rolloutView(r.id, actor);
}

const RULES: Record<ClusterDecision["action"], { statuses: readonly RolloutStatus[]; verb: string; nothing: string }> = {
  skip: {
    statuses: ["awaiting-approval", "running", "paused"],
    verb: "skipped",
    nothing: "none of them is pending, waiting, running or failed",
  },
  retry: { statuses: ["running", "paused"], verb: "retried", nothing: "none of them has failed" },
  include: { statuses: ["awaiting-approval", "running", "paused"], verb: "included", nothing: "none of them is excluded" },
};

/** What a decision left alone, in words: "c02 is succeeded, c09 is not in this rollout". */
function leftAloneWords(leftAlone: { cluster: string; state: string | null }[]): string {
  const shown = leftAlone.slice(0, 10).map((c) => `${c.cluster} is ${c.state ?? "not in this rollout"}`);
  return leftAlone.length > 10 ? `${shown.join(", ")} and ${leftAlone.length - 10} more` : shown.join(", ");
}

/**
 * Skips, retries or includes clusters of a rollout: named (only while still in the state the
 * person saw, when given), or every cluster in a state. Says which changed and which were left alone.
 */
export async function decideClusters(
  id: string,
  decision: ClusterDecision,
  actor: Actor,
): Promise<{
  changed: string[];
  leftAlone: { cluster: string; state: RolloutClusterState | null }[];
  inFlight: number;
  rollout: RolloutView;
}> {
  if (decision.action === "include" && actor.user.role !== "admin")
    throw new UserFacingError(403, "Only an admin may include a cluster its checks excluded");
  const r = await found(id, actor);
  const rule = RULES[decision.action];
  const why = decision.comment.trim();
  // A decision about a cluster takes the role over that cluster: named ones must all be in the
  // approver's scope (those the person cannot read are counted, never named); "every cluster in a
  // state" means every one in their scope.
  const roles = decision.action === "include" ? (["admin"] as const) : (["approver"] as const);
  const write = reachOf(actor.held, roles);
  let names = decision.clusters;
  if (write.kind !== "fleet") {
    if (names) {
      const held = new Set((await clustersInReach(names, write)).map((c) => c.name));
      const outside = names.filter((n) => !held.has(n));
      if (outside.length) {
        const seen = new Set((await clustersInReach(outside, readReach(actor.held))).map((c) => c.name));
        const named = outside.filter((n) => seen.has(n));
        throw new UserFacingError(
          403,
          `${outside.length} of the clusters named ${outside.length === 1 ? "is" : "are"} outside your scope${
            named.length ? ` (${named.slice(0, 5).join(", ")}${named.length > 5 ? ", …" : ""})` : ""
          }: ${scopeText(actor, [...roles])}`,
        );
      }
    } else {
      names = await clustersOfRolloutInReach(r.id, write);
      if (!names.length) throw new UserFacingError(403, `None of the rollout's clusters is in your scope: ${scopeText(actor, [...roles])}`);
    }
  }
  const grant = scopeText(actor, [...roles]);
  const result = await decideRolloutClusters(
    r.id,
    decision.action,
    names ? { names, ...(decision.inState ? { state: decision.inState } : {}) } : { state: decision.inState! },
    { allowedStatuses: rule.statuses, by: actor.user.username, why },
    (current, changed) => ({
      ...auditActor(actor),
      action: `rollout.${decision.action}`,
      targetType: "rollout",
      targetId: String(current.number),
      summary: `${rule.verb} ${changed.length === 1 ? changed[0] : `${changed.length} clusters`} in rollout ${current.number}: ${why}`,
      details: { grant },
    }),
  );
  // Names taken from the reader's scope were not named by them: what was left alone of those is not news.
  if (!decision.clusters && "leftAlone" in result) result.leftAlone = [];
  if ("refused" in result) throw new UserFacingError(409, `Cannot be ${rule.verb}: ${result.refused}`);
  if (!result.changed.length)
    throw new UserFacingError(
      409,
      `Nothing ${rule.verb}: ${decision.clusters && decision.inState ? `none of them is still ${decision.inState}` : rule.nothing}${
        result.leftAlone.length ? ` (${leftAloneWords(result.leftAlone)})` : ""
      }`,
    );
  return { changed: result.changed, leftAlone: result.leftAlone, inFlight: result.inFlight, rollout: await rolloutView(r.id, actor) };
}
