import { credentialsOf } from "../clusters/registration";
import { UserFacingError } from "../errors";
import { listClusterSummaries } from "../store/clusters";
import { previewOnCluster, type ClusterPreview } from "./clusterPreview";
import type { RenderedConfig } from "../domain/disruption/machineConfig";

export type FleetPreview = {
  clusters: ({ cluster: string; error: string } | ClusterPreview)[];
  summary: {
    rebootNodes: number;
    rebootClusters: number;
    otherNodes: number;
    otherClusters: number;
    /** Unreachable clusters previewed from the configuration kept from their last sweep. */
    stored: number;
    failed: number;
    text: string;
  };
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The same preview on several clusters at once, a few at a time; one cluster's failure is reported, not fatal. */
export async function previewOnFleet(names: string[] | "all", proposed: RenderedConfig, concurrency = 4): Promise<FleetPreview> {
  const summaries = await listClusterSummaries();
  const registered = summaries.map((c) => c.name);
  // Offline imports are never contacted: "all" means the live clusters; one named is refused with the reason.
  const chosen = names === "all" ? summaries.filter((c) => !c.offline).map((c) => c.name) : names;
  const unknown = chosen.filter((n) => !registered.includes(n));
  if (unknown.length) throw new UserFacingError(404, `no cluster named ${unknown.join(", ")}`);
  const queue = [...chosen];
  const results = new Map<string, FleetPreview["clusters"][number]>();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        try {
          results.set(name, await previewOnCluster(name, await credentialsOf(name), proposed));
        } catch (error) {
          results.set(name, { cluster: name, error: (error as Error).message });
        }
      }
    }),
  );
  const clusters = chosen.map((n) => results.get(n)!);
  let rebootNodes = 0,
    rebootClusters = 0,
    otherNodes = 0,
    otherClusters = 0,
    failed = 0;
  for (const c of clusters) {
    if ("error" in c) {
      failed++;
      continue;
    }
    const reboots = c.pools.filter((p) => p.verdict === "Reboot");
    const others = c.pools.filter((p) => p.verdict !== "Reboot" && p.verdict !== "No disruption");
    rebootNodes += reboots.reduce((s, p) => s + p.nodes, 0);
    otherNodes += others.reduce((s, p) => s + p.nodes, 0);
    if (reboots.length) rebootClusters++;
    else if (others.length) otherClusters++;
  }
  const stored = clusters.filter((c) => !("error" in c) && c.source === "stored").length;
  const text = `reboots ${plural(rebootNodes, "node")} in ${plural(rebootClusters, "cluster")}, no reboot in ${plural(otherClusters, "cluster")} (${plural(otherNodes, "node")})${stored ? `; ${plural(stored, "unreachable cluster")} previewed from the configuration of ${stored === 1 ? "its" : "their"} last sweep` : ""}${failed ? `; ${plural(failed, "cluster")} could not be previewed` : ""}`;
  return { clusters, summary: { rebootNodes, rebootClusters, otherNodes, otherClusters, stored, failed, text } };
}
