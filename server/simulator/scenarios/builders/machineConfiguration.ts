import type { KubeObject } from "../../objectStore";
import { uidOf } from "../random";
import type { ClusterPlan } from "../plan";

const manager = (mode: string) => ({
  resource: "machinesets",
  apiGroup: "machine.openshift.io",
  selection:
    mode === "Partial"
      ? { mode, partial: { machineResourceSelector: { matchLabels: { "bootimages.example.com/managed": "true" } } } }
      : { mode },
});

/**
 * MachineConfiguration/cluster as the admin left it: the spec (managed boot images, skew
 * enforcement, the reference cluster's node-disruption policy). Its status is the simulated
 * operator's and boot image controller's (settle.ts); only the conditions' shape starts from the template.
 */
export function machineConfiguration({ p, template }: ClusterPlan): KubeObject[] {
  const mc = structuredClone(template("MachineConfiguration")[0]!) as KubeObject & {
    spec: Record<string, unknown>;
    status: Record<string, unknown>;
  };
  mc.metadata = { ...mc.metadata, uid: uidOf(`${p.name}/mcfg`), annotations: {} };
  delete mc.spec.managedBootImages;
  if (p.managedBootImages === "empty-list") mc.spec.managedBootImages = { machineManagers: [] };
  else if (p.managedBootImages !== "unset") mc.spec.managedBootImages = { machineManagers: [manager(p.managedBootImages)] };
  if (p.enforcementSpec) mc.spec.bootImageSkewEnforcement = structuredClone(p.enforcementSpec);
  mc.status = { observedGeneration: mc.metadata.generation ?? 1 };
  return [mc];
}
