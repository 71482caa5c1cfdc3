import { cvoInputsOf, withCvoUpgradeable } from "../cvo";
import { reconcileMachineConfigUpgradeable, reconcileMachineConfiguration, type ClusterView } from "../mco";
import { checkBootImagePlatform } from "../mco/platform";
import type { KubeObject } from "../objectStore";
import { PUBLISHED_AMIS } from "./bootImages";
import { iso, type ClusterPlan } from "./plan";

type Any = Record<string, any>;

/** A ClusterView over a list of objects: what the simulated MCO reads and writes while a cluster is generated. */
export function arrayView(objects: KubeObject[], release: string, at: Date, skewEnforcement: boolean): ClusterView {
  const matches = (o: KubeObject, kind: string, name: string, namespace?: string) =>
    o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace);
  return {
    release,
    skewEnforcement,
    publishedAmis: PUBLISHED_AMIS,
    servesProvisioning: true,
    get: (kind, name, namespace) => (objects.find((o) => matches(o, kind, name, namespace)) as Any | undefined) ?? null,
    list: (kind, namespace) =>
      objects.filter((o) => o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace)) as Any[],
    put: (kind, obj, subresource) => {
      const at = objects.findIndex((o) => matches(o, kind, obj.metadata.name, obj.metadata.namespace));
      if (at < 0) return;
      const current = objects[at]!;
      const { resourceVersion: _rv, ...metadata } = obj.metadata;
      objects[at] = subresource === "status" ? { ...current, status: obj.status } : { ...obj, metadata, status: current.status };
    },
    now: () => iso(at),
  };
}

/**
 * Leaves generated objects as the MCO and the CVO would have: the operator's and the boot image
 * controller's pass when MachineSets were first opted in by default (so the opt-in annotation carries
 * that release's date), another at the current release, then machine-config's Upgradeable and
 * ClusterVersion's Upgradeable conditions. Every decision is the simulated operators' (../mco, ../cvo).
 */
export function settle(plan: ClusterPlan, objects: KubeObject[]): KubeObject[] {
  const infra = objects.find((o) => o.kind === "Infrastructure") as Any | undefined;
  const currentAt = plan.releases.at(-1)!.at;
  if (plan.p.managedBootImages === "unset") {
    const optIn = plan.releases.find((r) => checkBootImagePlatform(infra ?? null, r.version).enabledByDefault);
    if (optIn && optIn.version !== plan.current)
      reconcileMachineConfiguration(arrayView(objects, optIn.version, optIn.at, false), "ClusterVersionStable");
  }
  const view = arrayView(objects, plan.current, currentAt, plan.minor >= 22);
  reconcileMachineConfiguration(view, "ClusterVersionStable");
  reconcileMachineConfigUpgradeable(view);
  const cv = objects.find((o) => o.kind === "ClusterVersion") as Any;
  cv.status.conditions = withCvoUpgradeable(cv.status.conditions, cvoInputsOf(objects), iso(currentAt));
  return objects;
}
