/**
 * Where one cluster's upgrade stands, in the CVO's and the MCO's own words. The CVO records an
 * update in ClusterVersion status.history (newest first; state Partial until Completed) and reports
 * a failing one with condition Failing=True, and a refused one with ReleaseAccepted=False
 * (openshift/api config/v1 types_cluster_version.go: UpdateHistory, ClusterStatusConditionType).
 * The MCO then rolls the new configuration out to each MachineConfigPool, which says Updated=True
 * when done and Degraded=True when it cannot go on (openshift/api machineconfiguration/v1
 * MachineConfigPoolConditionType). An upgrade is done when both are.
 */
type Condition = { type: string; status: string; reason?: string | null; message?: string | null };
export type ObservedClusterVersion = {
  desiredVersion: string | null;
  history: { state: string; version?: string }[];
  conditions: Condition[];
};
export type ObservedPool = { name: string; conditions: Condition[] };

export type StepProgress = { state: "running"; note: string } | { state: "succeeded" } | { state: "failed"; reason: string };

const condition = (conditions: Condition[], type: string) => conditions.find((c) => c.type === type);

export function upgradeProgress(target: string, cv: ObservedClusterVersion, pools: ObservedPool[]): StepProgress {
  const refused = condition(cv.conditions, "ReleaseAccepted");
  if (cv.desiredVersion === target && refused?.status === "False")
    return {
      state: "failed",
      reason: `the cluster version operator refused ${target}: ${refused.message ?? refused.reason ?? "ReleaseAccepted=False"}`,
    };
  const failing = condition(cv.conditions, "Failing");
  if (failing?.status === "True")
    return { state: "failed", reason: `the update is failing: ${failing.message ?? failing.reason ?? "Failing=True"}` };
  const degraded = pools.find((p) => condition(p.conditions, "Degraded")?.status === "True");
  if (degraded) {
    const c = condition(degraded.conditions, "Degraded")!;
    return { state: "failed", reason: `pool ${degraded.name} is degraded: ${c.message || c.reason || "Degraded=True"}` };
  }
  const head = cv.history[0];
  if (!head || head.version !== target) return { state: "running", note: `waiting for the cluster to start the update to ${target}` };
  if (head.state !== "Completed") {
    const progressing = condition(cv.conditions, "Progressing");
    return { state: "running", note: progressing?.message ? `updating: ${progressing.message}` : `updating to ${target}` };
  }
  const updating = pools.filter((p) => condition(p.conditions, "Updated")?.status !== "True").map((p) => p.name);
  if (updating.length) return { state: "running", note: `${target} is applied; pools still updating: ${updating.join(", ")}` };
  return { state: "succeeded" };
}
