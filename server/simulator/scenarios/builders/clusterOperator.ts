import type { KubeObject } from "../../objectStore";
import { uidOf } from "../random";
import type { ClusterPlan } from "../plan";

/** ClusterOperator machine-config at the current release; its Upgradeable is the simulated MCO's (settle.ts). */
export function machineConfigOperator({ p, current, template }: ClusterPlan): KubeObject[] {
  const co = structuredClone(template("ClusterOperator")[0]!) as KubeObject & {
    status: { conditions: Record<string, unknown>[]; versions?: unknown };
  };
  co.metadata = { ...co.metadata, uid: uidOf(`${p.name}/co`) };
  co.status.conditions = co.status.conditions
    .filter((c) => c.type !== "Upgradeable")
    .map((c) =>
      c.type === "Progressing"
        ? { ...c, message: `Cluster version is ${current}` }
        : c.type === "Available"
          ? { ...c, message: `Cluster has deployed [{operator ${current}}]` }
          : c,
    );
  co.status.versions = [{ name: "operator", version: current }];
  return [co];
}
