import { matchesLabels, parseLabelSelector, SelectorError } from "../domain/labelSelector";
import { KubeError, type KindRef, type ObjectSource } from "./client";
import { groupVersionOf } from "./kinds";
import type { DumpObject } from "./dumps";

const splitApiVersion = (apiVersion: string) => {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
};

const objectKey = (namespace: string | undefined, name: string) => `${namespace ?? ""}/${name}`;

/** Only string-valued labels count, as on a real API server (a dump edited by hand may hold others). */
function labelsOf(obj: DumpObject): Record<string, string> {
  const labels = obj.metadata.labels;
  if (typeof labels !== "object" || labels === null) return {};
  return Object.fromEntries(Object.entries(labels).filter(([, v]) => typeof v === "string"));
}

/**
 * Objects captured from a cluster (object dumps), answering the readers the way the cluster's API
 * server would have: a kind absent from the capture is not served, a missing object is not found,
 * lists honour the namespace and the label selector. The readers cannot tell it from a live cluster,
 * so an imported cluster is read, normalized and judged by exactly the same code as a swept one.
 */
export class CapturedCluster implements ObjectSource {
  /** group/kind → version → namespace/name → object */
  private readonly kinds = new Map<string, Map<string, Map<string, DumpObject>>>();
  /** Objects that appeared more than once; the last one read is kept, as a later dump is the newer. */
  readonly duplicates: string[] = [];

  constructor(objects: readonly DumpObject[]) {
    for (const obj of objects) {
      const { group, version } = splitApiVersion(obj.apiVersion);
      const kindKey = `${group}/${obj.kind}`;
      let versions = this.kinds.get(kindKey);
      if (!versions) this.kinds.set(kindKey, (versions = new Map()));
      let byName = versions.get(version);
      if (!byName) versions.set(version, (byName = new Map()));
      const key = objectKey(obj.metadata.namespace, obj.metadata.name);
      if (byName.has(key)) this.duplicates.push(`${obj.kind} ${key.startsWith("/") ? key.slice(1) : key}`);
      byName.set(key, obj);
    }
  }

  /** The objects of a kind at the version asked for, or the error a cluster not serving it gives. */
  private served(ref: KindRef): Map<string, DumpObject> {
    const versions = this.kinds.get(`${ref.group}/${ref.kind}`);
    if (!versions) throw new KubeError("not-served", `${ref.kind} is not in the capture`, 404);
    const objects = versions.get(ref.version);
    if (!objects) {
      const captured = [...versions.keys()].map((v) => groupVersionOf({ ...ref, version: v })).join(", ");
      throw new KubeError("not-served", `${ref.kind} is in the capture only as ${captured}, not ${groupVersionOf(ref)}`, 404);
    }
    return objects;
  }

  async get(ref: KindRef, name: string, namespace?: string): Promise<unknown> {
    const objects = this.served(ref);
    const key = objectKey(ref.namespaced ? namespace : undefined, name);
    const obj = objects.get(key);
    if (!obj)
      throw new KubeError(
        "not-found",
        `${ref.kind} ${ref.namespaced && namespace ? `${namespace}/` : ""}${name} is not in the capture`,
        404,
      );
    // Callers own what they get, as with a response body; the capture stays as it was.
    return structuredClone(obj);
  }

  async list(ref: KindRef, options: { namespace?: string; labelSelector?: string } = {}): Promise<unknown[]> {
    const objects = this.served(ref);
    let requirements;
    try {
      requirements = parseLabelSelector(options.labelSelector);
    } catch (error) {
      if (error instanceof SelectorError) throw new KubeError("invalid", `invalid label selector: ${error.message}`, 400);
      throw error;
    }
    const inNamespace = ref.namespaced && options.namespace !== undefined;
    return [...objects.entries()]
      .filter(([, obj]) => !inNamespace || obj.metadata.namespace === options.namespace)
      .filter(([, obj]) => matchesLabels(requirements, labelsOf(obj)))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) // an API server lists in key order
      .map(([, obj]) => structuredClone(obj));
  }
}
