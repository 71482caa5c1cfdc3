import type { Reach } from "../domain/grants";
import { credentialsOf } from "../clusters/registration";
import { fleetPage } from "../fleet/fleetPage";
import { FleetListQuerySchema } from "../fleet/fleetQuery";
import { firstIssue } from "../http/api";
import { UserFacingError } from "../errors";
import { KubeError } from "../kube/client";
import { listClusterSummaries } from "../store/clusters";
import { clusterNamesInReach } from "../store/fleet";
import { previewOnCluster, type PreviewAudience, type ProposedConfig } from "./clusterPreview";
import { summarizeFleet } from "../domain/disruption/verdict";
import { FleetPreviewClusters, MAX_FLEET_PREVIEW_CLUSTERS, type FleetPreview } from "./contract";

export { FleetPreviewClusters, MAX_FLEET_PREVIEW_CLUSTERS, type FleetPreview };

/** A cluster's failure as the requester may read it: the cluster's answer or ours, never an internal error. */
function failureText(name: string, error: unknown): string {
  if (error instanceof UserFacingError || error instanceof KubeError) return error.message;
  console.error(`fleetskew: preview on ${name} failed:`, error);
  return `${name} could not be previewed because of an error in Fleetskew; the details are in the server log`;
}

/** The live clusters in reach the fleet view's query string matches; more than a fleet preview covers is refused. */
async function namesMatching(query: string, reach: Reach): Promise<string[]> {
  const parsed = FleetListQuerySchema.safeParse({
    ...Object.fromEntries(new URLSearchParams(query)),
    after: undefined,
    limit: String(MAX_FLEET_PREVIEW_CLUSTERS + 1),
  });
  if (!parsed.success)
    throw new UserFacingError(400, `${firstIssue(parsed.error)} (in the cluster filter)`, {}, { field: "clusters.query" });
  const page = await fleetPage(parsed.data, { reach });
  const live = page.clusters.filter((c) => !c.offline).map((c) => c.name);
  if (live.length > MAX_FLEET_PREVIEW_CLUSTERS)
    throw new UserFacingError(
      422,
      `${page.total} clusters match; a fleet preview covers at most ${MAX_FLEET_PREVIEW_CLUSTERS}, so narrow the filter`,
      {},
      { field: "clusters.query" },
    );
  if (!live.length) throw new UserFacingError(422, "No live cluster matches this filter", {}, { field: "clusters.query" });
  return live;
}

/**
 * The same preview on several clusters at once, a few at a time; one cluster's failure is reported,
 * not fatal. Only clusters in the requester's reach: "all" and a query mean those in reach, and a
 * named cluster outside it is refused exactly like one that does not exist.
 */
export async function previewOnFleet(
  selection: string[] | "all" | { query: string },
  proposed: ProposedConfig,
  audience: PreviewAudience,
  reach: Reach,
  concurrency = 4,
): Promise<FleetPreview> {
  const names = typeof selection === "object" && !Array.isArray(selection) ? await namesMatching(selection.query, reach) : selection;
  const every = await listClusterSummaries();
  const inReach = reach.kind === "fleet" ? null : await clusterNamesInReach(names === "all" ? every.map((c) => c.name) : names, reach);
  const summaries = inReach ? every.filter((c) => inReach.has(c.name)) : every;
  const registered = new Set(summaries.map((c) => c.name));
  // Offline imports are never contacted: "all" means the live clusters; one named is refused with the reason.
  const chosen = names === "all" ? summaries.filter((c) => !c.offline).map((c) => c.name) : [...new Set(names)];
  const unknown = chosen.filter((n) => !registered.has(n));
  if (unknown.length)
    throw new UserFacingError(
      404,
      `no cluster named ${unknown.slice(0, 10).join(", ")}${unknown.length > 10 ? ` and ${unknown.length - 10} more` : ""}`,
    );
  if (chosen.length > MAX_FLEET_PREVIEW_CLUSTERS)
    throw new UserFacingError(
      422,
      `the fleet has ${chosen.length} live clusters; a fleet preview covers at most ${MAX_FLEET_PREVIEW_CLUSTERS}, so choose the clusters to preview`,
    );
  const queue = [...chosen];
  const results = new Map<string, FleetPreview["clusters"][number]>();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let name = queue.shift(); name; name = queue.shift()) {
        try {
          results.set(name, await previewOnCluster(name, await credentialsOf(name), proposed, audience));
        } catch (error) {
          results.set(name, { cluster: name, error: failureText(name, error) });
        }
      }
    }),
  );
  const clusters = chosen.map((n) => results.get(n)!);
  return { clusters, summary: summarizeFleet(clusters) };
}
