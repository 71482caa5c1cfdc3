/**
 * Where one cluster's upgrade stands, in the CVO's and the MCO's own words. The CVO records an
 * update in ClusterVersion status.history (newest first; state Partial until Completed) and reports
 * a failing one with condition Failing=True, and a refused one with ReleaseAccepted=False
 * (openshift/api config/v1 types_cluster_version.go: UpdateHistory, ClusterStatusConditionType).
 * The MCO then rolls the new configuration out to each MachineConfigPool, which says Updated=True
 * when done and Degraded=True when it cannot go on (openshift/api machineconfiguration/v1
 * MachineConfigPoolConditionType). An upgrade is done when both are.
 *
 * Pools that could not be listed are unknown, never "no pools": an upgrade is not called done on
 * ClusterVersion alone. The cluster's words in a note or reason are clipped (server/domain/clip.ts).
 */
import { clipText } from "../clip";

type Condition = { type: string; status: string; reason?: string | null; message?: string | null };
export type ObservedClusterVersion = {
  desiredVersion: string | null;
  history: { state: string; version?: string }[];
  conditions: Condition[];
};
export type ObservedPool = { name: string; conditions: Condition[] };
/** The pools as listed, or why they could not be (an error answer, a timeout: not the same as none). */
export type ObservedPools = ObservedPool[] | { unread: string };

export type StepProgress = { state: "running"; note: string } | { state: "succeeded" } | { state: "failed"; reason: string };

const condition = (conditions: Condition[], type: string) => conditions.find((c) => c.type === type);

/** The cluster's own words, clipped: a hostile cluster's message does not grow a note past the stored bound. */
const words = (text: string | null | undefined) => clipText(text ?? null);

export function upgradeProgress(target: string, cv: ObservedClusterVersion, observed: ObservedPools): StepProgress {
  const progress = judge(target, cv, Array.isArray(observed) ? observed : []);
  // Without the pools only what ClusterVersion alone decides stands (a failure, a wait): never a success.
  if (progress.state === "succeeded" && !Array.isArray(observed))
    return { state: "running", note: clipText(`cannot read MachineConfigPools now: ${observed.unread}`) };
  if (progress.state === "running") return { state: "running", note: clipText(progress.note) };
  if (progress.state === "failed") return { state: "failed", reason: clipText(progress.reason) };
  return progress;
}

function judge(target: string, cv: ObservedClusterVersion, pools: ObservedPool[]): StepProgress {
  const refused = condition(cv.conditions, "ReleaseAccepted");
  if (cv.desiredVersion === target && refused?.status === "False")
    return {
      state: "failed",
      reason: `the cluster version operator refused ${target}: ${words(refused.message ?? refused.reason) ?? "ReleaseAccepted=False"}`,
    };
  const failing = condition(cv.conditions, "Failing");
  if (failing?.status === "True")
    return { state: "failed", reason: `the update is failing: ${words(failing.message ?? failing.reason) ?? "Failing=True"}` };
  const degraded = pools.find((p) => condition(p.conditions, "Degraded")?.status === "True");
  if (degraded) {
    const c = condition(degraded.conditions, "Degraded")!;
    return { state: "failed", reason: `pool ${degraded.name} is degraded: ${words(c.message || c.reason) || "Degraded=True"}` };
  }
  const head = cv.history[0];
  if (!head || head.version !== target) return { state: "running", note: `waiting for the cluster to start the update to ${target}` };
  if (head.state !== "Completed") {
    const progressing = condition(cv.conditions, "Progressing");
    return { state: "running", note: progressing?.message ? `updating: ${words(progressing.message)}` : `updating to ${target}` };
  }
  const updating = pools.filter((p) => condition(p.conditions, "Updated")?.status !== "True").map((p) => p.name);
  if (updating.length) return { state: "running", note: `${target} is applied; pools still updating: ${words(updating.join(", "))}` };
  return { state: "succeeded" };
}
