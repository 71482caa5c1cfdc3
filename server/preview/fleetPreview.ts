import { credentialsOf } from "../clusters/registration";
import { UserFacingError } from "../errors";
import { listClusterSummaries } from "../store/clusters";
import { previewOnCluster, type ClusterPreview } from "./clusterPreview";
import type { RenderedConfig } from "../domain/disruption/machineConfig";
import { summarizeFleet, type FleetSummary } from "../domain/disruption/verdict";

export type FleetPreview = {
  clusters: ({ cluster: string; error: string } | ClusterPreview)[];
  summary: FleetSummary;
};

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
  return { clusters, summary: summarizeFleet(clusters) };
}
