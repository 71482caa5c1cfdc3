import type { InternalReleaseImageFacts, IriNodeFacts, IriReleaseFacts, ReadProblem } from "../domain/snapshot";
import type { ClusterObjects } from "../kube/readers";
import { arr, conditionsOf, obj, str } from "./fields";

/**
 * The registry-less part of a snapshot: the InternalReleaseImage singleton and each node's
 * MachineConfigNode status.internalReleaseImage (docs/openshift.md §24).
 * Read defensively, as the rest of the snapshot: entries of another shape are dropped.
 */
function releasesOf(list: unknown): IriReleaseFacts[] {
  const seen = new Set<string>();
  return arr(list)
    .map(obj)
    .filter((r) => {
      const name = str(r.name);
      // The API keys the list by name; a repeated name is kept once, as a list-map would.
      if (!name || seen.has(name)) return false;
      seen.add(name);
      return true;
    })
    .map((r) => ({ name: String(r.name), image: str(r.image), conditions: conditionsOf(r.conditions) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The MachineConfigNode condition the node's registry check writes (openshift/api `MachineConfigNodeInternalReleaseImageDegraded`). */
export const MCN_IRI_DEGRADED = "InternalReleaseImageDegraded";

function nodesOf(mcns: ClusterObjects["machineConfigNodes"]): IriNodeFacts[] {
  if (mcns.status !== "ok") return [];
  return mcns.items
    .map((m): IriNodeFacts => {
      const status = obj(m.status);
      return {
        node: String(obj(m.metadata).name),
        degraded: conditionsOf(status.conditions).find((c) => c.type === MCN_IRI_DEGRADED) ?? null,
        releases: releasesOf(obj(status.internalReleaseImage).releases),
      };
    })
    .filter((n) => n.degraded || n.releases.length)
    .sort((a, b) => a.node.localeCompare(b.node));
}

/**
 * Null when the cluster is not registry-less: no `cluster` object, or a cluster that does not serve
 * the kind. A read that failed is null too, with a problem saying why.
 */
export function internalReleaseImageFacts(read: ClusterObjects, problems: ReadProblem[]): InternalReleaseImageFacts | null {
  const r = read.internalReleaseImage;
  if (!r || r.status === "not-available") return null;
  if (r.status === "error") {
    problems.push({ part: "InternalReleaseImage", kind: "error", message: r.error.message });
    return null;
  }
  const spec = obj(r.value.spec);
  const status = obj(r.value.status);
  return {
    requested: [
      ...new Set(
        arr(spec.releases)
          .map((x) => str(obj(x).name))
          .filter((x): x is string => !!x),
      ),
    ].sort(),
    releases: releasesOf(status.releases),
    conditions: conditionsOf(status.conditions),
    nodes: nodesOf(read.machineConfigNodes),
  };
}
